/**
 * memory-openclaw: subconscious memory for OpenClaw (recall before each turn, capture after it).
 *
 * What it promises:
 * - `before_prompt_build` returns `{appendContext}` with the memories relevant to the prompt,
 *   or nothing. It waits for memory-core at most `timeoutMs` (default 1500 ms); past that the
 *   child is killed and the turn goes on without memories.
 * - The turn's answer is captured once, from whichever of `llm_output` / `agent_end` brings it
 *   first (OpenClaw runs them concurrently, `agent_end` usually first), paired by `runId` with
 *   the prompt `before_prompt_build` saw. Capture is fire-and-forget: the turn never waits for
 *   it, and memory-core spools a capture its store cannot take.
 * - Nothing here blocks the event loop: memory-core runs as an async child process
 *   (`<python> -m memory_openclaw.hook`, JSON on stdin), never `execFileSync`/`spawnSync`.
 * - `register()` may run several times in one process (OpenClaw builds several registries):
 *   turn state lives on `globalThis`, so a turn is recalled and captured once however many
 *   registrations exist.
 *
 * How it fails: every failure (no interpreter, a crash, a timeout, unreadable output) returns
 * nothing from the hook and never throws into OpenClaw. memory-core logs its own errors.
 */
import { spawn } from "node:child_process";
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

const PLUGIN_ID = "memory-openclaw";
const HOOK_MODULE = "memory_openclaw.hook";
const DEFAULT_READ_TIMEOUT_MS = 1500;
// Capture is off the turn's path; this bound only stops a wedged child from living forever.
const CAPTURE_TIMEOUT_MS = 30_000;
// Turns remembered per process: far more than can be in flight, small enough to never matter.
const MAX_TURNS = 512;
const MAX_OUTPUT_BYTES = 1_000_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

type Turn = {
  prompt?: string;
  /** The registration that ran the recall, and its result, so a retried attempt gets the same context. */
  readBy?: number;
  read?: Promise<{ appendContext: string } | undefined>;
  captured?: boolean;
};

type State = { turns: Map<string, Turn>; registrations: WeakMap<object, number>; next: number; warned: boolean };

const STATE_KEY = Symbol.for("memory-openclaw.state");

function state(): State {
  const holder = globalThis as unknown as Record<symbol, State | undefined>;
  let current = holder[STATE_KEY];
  if (!current) {
    current = { turns: new Map(), registrations: new WeakMap(), next: 1, warned: false };
    holder[STATE_KEY] = current;
  }
  return current;
}

function turnFor(runId: string): Turn {
  const turns = state().turns;
  let turn = turns.get(runId);
  if (!turn) {
    turn = {};
    turns.set(runId, turn);
    while (turns.size > MAX_TURNS) {
      const oldest = turns.keys().next().value;
      if (oldest === undefined) break;
      turns.delete(oldest);
    }
  }
  return turn;
}

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The fields of a hook context memory-core reads; the rest (functions, traces) stays here. */
function slimContext(ctx: unknown): Obj {
  const source = isObj(ctx) ? ctx : {};
  const out: Obj = {};
  for (const key of ["runId", "sessionId", "sessionKey", "agentId", "workspaceDir", "trigger"]) {
    const value = str(source[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function textOf(message: unknown): string {
  if (!isObj(message)) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is Obj => isObj(block) && block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/** The last message with `role`, or undefined. */
function lastOf(messages: unknown, role: string): Obj | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isObj(message) && message.role === role) return message;
  }
  return undefined;
}

/**
 * The part of an answer event memory-core needs, in OpenClaw's own shape (so the recorded
 * payloads parse the same way). `agent_end.messages` holds the whole session: only the
 * turn's last user and assistant messages travel. Returns undefined when there is no answer.
 */
function slimAnswer(hook: "llm_output" | "agent_end", event: unknown): Obj | undefined {
  if (!isObj(event)) return undefined;
  if (hook === "llm_output") {
    const texts = Array.isArray(event.assistantTexts) ? event.assistantTexts.filter((t) => typeof t === "string") : [];
    const last = isObj(event.lastAssistant) ? { role: "assistant", content: event.lastAssistant.content as Json } : undefined;
    if (!textOf(last).trim() && !texts.some((t) => (t as string).trim())) return undefined;
    return { runId: str(event.runId), assistantTexts: texts, ...(last ? { lastAssistant: last } : {}) };
  }
  if (event.success === false) return undefined;
  const user = lastOf(event.messages, "user");
  const assistant = lastOf(event.messages, "assistant");
  if (!textOf(assistant).trim()) return undefined;
  const keep = (m: Obj | undefined) => (m ? [{ role: m.role, content: m.content }] : []);
  return { runId: str(event.runId), success: true, messages: [...keep(user), ...keep(assistant)] };
}

type Settings = { python: string; timeoutMs: number };

function settingsFrom(pluginConfig: unknown): Settings {
  const config = isObj(pluginConfig) ? pluginConfig : {};
  const timeout = typeof config.timeoutMs === "number" && config.timeoutMs > 0 ? config.timeoutMs : DEFAULT_READ_TIMEOUT_MS;
  return { python: str(config.python) ?? "python3", timeoutMs: timeout };
}

type Logger = { warn?: (message: string) => void };

/**
 * Run `<python> -m memory_openclaw.hook` with `payload` on stdin and resolve with its stdout
 * ("" on any failure). `wait: false` detaches the child (capture): it outlives this process
 * if OpenClaw exits first, and a Ctrl-C in OpenClaw's terminal does not reach it.
 */
function runHook(settings: Settings, payload: Obj, timeoutMs: number, wait: boolean, logger?: Logger): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (out: string) => {
      if (settled) return;
      settled = true;
      resolve(out);
    };
    let child;
    try {
      child = spawn(settings.python, ["-m", HOOK_MODULE], {
        stdio: ["pipe", wait ? "pipe" : "ignore", "ignore"],
        detached: !wait,
        windowsHide: true,
      });
    } catch (error) {
      warnOnce(logger, `cannot start ${settings.python}: ${String(error)}`);
      finish("");
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      // Let go of the pipes too: a grandchild holding them must not keep OpenClaw's process alive.
      child.stdout?.destroy();
      child.stdin?.destroy();
      child.unref();
      finish("");
    }, timeoutMs);
    timer.unref();
    child.on("error", (error) => {
      clearTimeout(timer);
      warnOnce(logger, `cannot run ${settings.python} -m ${HOOK_MODULE}: ${String(error)}`);
      finish("");
    });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      finish(code === 0 && size <= MAX_OUTPUT_BYTES ? Buffer.concat(chunks).toString("utf8") : "");
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify(payload));
    if (!wait) {
      child.unref();
      finish("");
    }
  });
}

function warnOnce(logger: Logger | undefined, message: string): void {
  const current = state();
  if (current.warned) return;
  current.warned = true;
  try {
    logger?.warn?.(`[${PLUGIN_ID}] ${message}`);
  } catch {
    // A logger that throws must not turn into a failed turn.
  }
}

function parseRecall(out: string): { appendContext: string } | undefined {
  if (!out.trim()) return undefined;
  try {
    const parsed: unknown = JSON.parse(out);
    if (isObj(parsed) && typeof parsed.appendContext === "string" && parsed.appendContext.trim()) {
      return { appendContext: parsed.appendContext };
    }
  } catch {
    // memory-core prints one JSON object or nothing; anything else is ignored.
  }
  return undefined;
}

type Api = {
  pluginConfig?: unknown;
  logger?: Logger;
  on: (name: string, handler: (event: unknown, ctx: unknown) => unknown, opts?: Obj) => void;
};

function register(api: Api): void {
  const current = state();
  if (current.registrations.has(api)) return;
  const registration = current.next++;
  current.registrations.set(api, registration);
  const settings = settingsFrom(api.pluginConfig);
  const logger = api.logger;

  api.on("before_prompt_build", async (event: unknown, ctx: unknown) => {
    const hookCtx = slimContext(ctx);
    const runId = str(hookCtx.runId);
    const prompt = isObj(event) ? str(event.prompt) : undefined;
    if (!runId || prompt === undefined) return undefined;
    const turn = turnFor(runId);
    if (turn.read) {
      // A retried attempt of this run gets the same context; another live registration gets none,
      // so the memories are never appended twice.
      return turn.readBy === registration ? await turn.read : undefined;
    }
    turn.prompt = prompt;
    turn.readBy = registration;
    turn.read = runHook(settings, { hook: "before_prompt_build", event: { prompt }, ctx: hookCtx }, settings.timeoutMs, true, logger).then(parseRecall);
    return await turn.read;
  });

  const capture = (hook: "llm_output" | "agent_end") => (event: unknown, ctx: unknown) => {
    const hookCtx = slimContext(ctx);
    const answer = slimAnswer(hook, event);
    const runId = str(hookCtx.runId) ?? (answer ? str(answer.runId) : undefined);
    if (!runId || !answer) return;
    const turn = turnFor(runId);
    if (turn.captured) return;
    turn.captured = true;
    const payload: Obj = { hook, event: answer, ctx: { ...hookCtx, runId } };
    if (turn.prompt !== undefined) payload.prompt = turn.prompt;
    void runHook(settings, payload, CAPTURE_TIMEOUT_MS, false, logger);
  };
  api.on("llm_output", capture("llm_output"));
  api.on("agent_end", capture("agent_end"));

  api.on("after_compaction", (_event: unknown, ctx: unknown) => {
    const hookCtx = slimContext(ctx);
    if (!str(hookCtx.sessionId) && !str(hookCtx.sessionKey)) return;
    void runHook(settings, { hook: "after_compaction", event: {}, ctx: hookCtx }, CAPTURE_TIMEOUT_MS, false, logger);
  });
}

export default definePluginEntry({
  id: PLUGIN_ID,
  name: "Subconscious memory",
  description: "Recalls this project's memories before each turn and captures each turn after it (memory-core).",
  register,
});
