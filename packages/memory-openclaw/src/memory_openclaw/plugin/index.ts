/**
 * memory-openclaw: subconscious memory for OpenClaw (recall before each turn, capture after it).
 *
 * What it promises:
 * - `before_prompt_build` returns `{appendContext}` with the memories relevant to the prompt,
 *   or nothing. It waits for memory-core at most `timeoutMs` (default 1500 ms); past that the
 *   turn goes on without memories.
 * - The turn's answer is captured once, from whichever of `llm_output` / `agent_end` brings it
 *   first (OpenClaw runs them concurrently, `agent_end` usually first), paired by `runId` with
 *   the prompt `before_prompt_build` saw; `agent_end` also brings the run's tool calls and
 *   results (its messages from the run's user message on), and is sent even when `llm_output`
 *   came first. Capture is fire-and-forget: the turn never waits for
 *   it, and memory-core spools a capture its store cannot take.
 * - Nothing here blocks the event loop: memory-core runs in a child process, never through
 *   `execFileSync`/`spawnSync`. Even an async spawn holds the loop while the OS copies this
 *   process (15-90 ms for OpenClaw's 0.7-1.4 GB), so the child is one long-lived worker per
 *   OpenClaw process (`<python> -m memory_openclaw.worker`, one JSON request per line on its
 *   stdin, one answer per line on its stdout), started when the Gateway starts or a turn
 *   begins (`before_model_resolve`, seconds before the prompt is built); each hook call after
 *   that is a pipe write.
 * - `register()` may run several times in one process (OpenClaw builds several registries):
 *   turn state and the worker live on `globalThis`, so a turn is recalled and captured once
 *   however many registrations exist.
 *
 * How it fails: every failure (no interpreter, a crash, a timeout, unreadable output) returns
 * nothing from the hook and never throws into OpenClaw. A worker that dies is started again
 * (at most 3 times a minute) and gets the captures it had not confirmed. memory-core logs its
 * own errors.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { definePluginEntry, type OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

const PLUGIN_ID = "memory-openclaw";
const WORKER_MODULE = "memory_openclaw.worker";
const DEFAULT_READ_TIMEOUT_MS = 1500;
// A request older than this means the worker is stuck (memory-core bounds each store call at 1 s).
const WEDGED_MS = 30_000;
const MAX_STARTS = 3;
// Turns remembered per process: far more than can be in flight, small enough to never matter.
const MAX_TURNS = 512;
// Captures kept for a worker that has not confirmed them (one outage's worth of turns).
const MAX_PENDING = 256;
const MAX_OUTPUT_BYTES = 1_000_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

type Turn = {
  prompt?: string;
  /** The registration that ran the recall, and its result, so a retried attempt gets the same context. */
  readBy?: number;
  read?: Promise<{ appendContext: string } | undefined>;
  captured?: boolean;
  /** Which answer event captured the turn: `agent_end` still follows an `llm_output` capture, for its events. */
  capturedBy?: "llm_output" | "agent_end";
};

type State = {
  turns: Map<string, Turn>;
  registrations: WeakMap<object, number>;
  next: number;
  warned: boolean;
  workers: Map<string, Worker>;
};

const STATE_KEY = Symbol.for("memory-openclaw.state");

function state(): State {
  const holder = globalThis as unknown as Record<symbol, State | undefined>;
  let current = holder[STATE_KEY];
  if (!current) {
    current = { turns: new Map(), registrations: new WeakMap(), next: 1, warned: false, workers: new Map() };
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
 * The run's own messages: its last user message and everything after it (the tool calls and
 * results memory keeps behind the turn), each with the fields memory reads.
 */
function runMessages(messages: unknown): Obj[] {
  if (!Array.isArray(messages)) return [];
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isObj(messages[i]) && (messages[i] as Obj).role === "user") {
      start = i;
      break;
    }
  }
  const fields = ["role", "content", "toolCallId", "toolName", "isError", "timestamp"];
  return messages.slice(start).filter(isObj).map((message) => {
    const out: Obj = {};
    for (const key of fields) if (message[key] !== undefined) out[key] = message[key] as Json;
    return out;
  });
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
  const assistant = lastOf(event.messages, "assistant");
  if (!textOf(assistant).trim()) return undefined;
  return { runId: str(event.runId), success: true, messages: runMessages(event.messages) };
}

type Settings = { python: string; timeoutMs: number };

function settingsFrom(pluginConfig: unknown): Settings {
  const config = isObj(pluginConfig) ? pluginConfig : {};
  const timeout = typeof config.timeoutMs === "number" && config.timeoutMs > 0 ? config.timeoutMs : DEFAULT_READ_TIMEOUT_MS;
  return { python: str(config.python) ?? "python3", timeoutMs: timeout };
}

type Logger = { warn?: (message: string) => void };

type Pending = { resolve: (out: string) => void; line: string; capture: boolean; sentAt: number };

/** The worker of one interpreter: `<python> -m memory_openclaw.worker`, and what it still owes. */
type Worker = {
  child?: ChildProcess;
  buffer: string;
  pending: Map<number, Pending>;
  nextId: number;
  starts: number[];
};

function handleLine(worker: Worker, line: string): void {
  let answer: unknown;
  try {
    answer = JSON.parse(line);
  } catch {
    return;
  }
  if (!isObj(answer) || typeof answer.id !== "number") return;
  const pending = worker.pending.get(answer.id);
  if (!pending) return; // a recall that already timed out
  worker.pending.delete(answer.id);
  pending.resolve(typeof answer.out === "string" ? answer.out : "");
}

function send(worker: Worker, line: string): void {
  try {
    worker.child?.stdin?.write(line);
  } catch {
    // The worker just died: its exit handler resends what it still owes.
  }
}

function onExit(worker: Worker, child: ChildProcess, settings: Settings, logger?: Logger): void {
  if (worker.child !== child) return;
  worker.child = undefined;
  worker.buffer = "";
  for (const [id, pending] of worker.pending) {
    if (!pending.capture) {
      worker.pending.delete(id);
      pending.resolve("");
    }
  }
  // Captures it did not confirm go to a new worker (a capture stored twice is one record).
  if (worker.pending.size > 0) startWorker(worker, settings, logger);
}

/**
 * Start the worker: detached (a Ctrl-C in OpenClaw's terminal does not reach it, and it
 * finishes the captures in its pipe after OpenClaw exits) and unreferenced (it never keeps
 * OpenClaw's process alive). At most MAX_STARTS starts per minute: a worker that cannot run
 * costs each turn nothing but a failed lookup.
 */
function startWorker(worker: Worker, settings: Settings, logger?: Logger): boolean {
  const now = Date.now();
  worker.starts = worker.starts.filter((at) => now - at < 60_000);
  if (worker.starts.length >= MAX_STARTS) return false;
  worker.starts.push(now);
  let child: ChildProcess;
  try {
    child = spawn(settings.python, ["-m", WORKER_MODULE], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    warnOnce(logger, `cannot start ${settings.python}: ${String(error)}`);
    return false;
  }
  worker.child = child;
  child.on("error", (error) => {
    warnOnce(logger, `cannot run ${settings.python} -m ${WORKER_MODULE}: ${String(error)}`);
    onExit(worker, child, settings, logger);
  });
  child.on("exit", () => onExit(worker, child, settings, logger));
  child.stdin?.on("error", () => {});
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    worker.buffer += chunk;
    let end: number;
    while ((end = worker.buffer.indexOf("\n")) >= 0) {
      const line = worker.buffer.slice(0, end);
      worker.buffer = worker.buffer.slice(end + 1);
      handleLine(worker, line);
    }
    if (worker.buffer.length > MAX_OUTPUT_BYTES) worker.buffer = "";
  });
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  for (const pending of worker.pending.values()) send(worker, pending.line);
  return true;
}

function workerFor(settings: Settings, logger?: Logger): Worker | undefined {
  const workers = state().workers;
  let worker = workers.get(settings.python);
  if (!worker) {
    worker = { buffer: "", pending: new Map(), nextId: 1, starts: [] };
    workers.set(settings.python, worker);
  }
  const oldest = Math.min(...[...worker.pending.values()].map((p) => p.sentAt));
  if (worker.child && Date.now() - oldest > WEDGED_MS) {
    // Each request is bounded inside memory-core (1 s store timeouts): this one is stuck.
    worker.child.kill("SIGKILL");
  }
  if (!worker.child && !startWorker(worker, settings, logger)) return undefined;
  return worker;
}

/**
 * Hand `payload` to memory-core and resolve with what it printed ("" on any failure). A
 * recall gives up after `settings.timeoutMs`; a capture is only written to the pipe (the
 * turn never waits for it) and is resent if the worker dies before confirming it.
 */
function request(settings: Settings, payload: Obj, capture: boolean, logger?: Logger): Promise<string> {
  const worker = workerFor(settings, logger);
  if (!worker) return Promise.resolve("");
  const id = worker.nextId++;
  const line = JSON.stringify({ id, payload }) + "\n";
  return new Promise((resolve) => {
    if (capture) {
      const captures = [...worker.pending].filter(([, pending]) => pending.capture);
      // Beyond this many unconfirmed captures the worker cannot take anything: drop the oldest.
      for (const [oldest] of captures.slice(0, Math.max(0, captures.length - MAX_PENDING + 1))) {
        worker.pending.delete(oldest);
      }
      worker.pending.set(id, { resolve, line, capture, sentAt: Date.now() });
      send(worker, line);
      resolve("");
      return;
    }
    // This timer is referenced on purpose: it keeps the process alive while a turn waits.
    const timer = setTimeout(() => {
      worker.pending.delete(id);
      resolve("");
    }, settings.timeoutMs);
    worker.pending.set(id, {
      resolve: (out) => {
        clearTimeout(timer);
        resolve(out);
      },
      line,
      capture,
      sentAt: Date.now(),
    });
    send(worker, line);
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

function register(api: OpenClawPluginApi): void {
  const current = state();
  if (current.registrations.has(api)) return;
  const registration = current.next++;
  current.registrations.set(api, registration);
  const settings = settingsFrom(api.pluginConfig);
  const logger = api.logger;

  // Start the worker while OpenClaw prepares the turn (seconds before it builds the prompt),
  // so the recall does not wait for Python to start. Returns nothing: the model is unchanged.
  const prewarm = () => {
    workerFor(settings, logger);
    return undefined;
  };
  api.on("before_model_resolve", prewarm);
  api.on("gateway_start", prewarm);

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
    const payload = { hook: "before_prompt_build", event: { prompt }, ctx: hookCtx };
    turn.read = request(settings, payload, false, logger).then(parseRecall);
    return await turn.read;
  });

  const capture = (hook: "llm_output" | "agent_end") => (event: unknown, ctx: unknown) => {
    const hookCtx = slimContext(ctx);
    const answer = slimAnswer(hook, event);
    const runId = str(hookCtx.runId) ?? (answer ? str(answer.runId) : undefined);
    if (!runId || !answer) return;
    const turn = turnFor(runId);
    // `agent_end` carries the run's tool calls and results: it is sent even after `llm_output`
    // captured the answer (the same record id stores the turn once).
    if (turn.captured && !(hook === "agent_end" && turn.capturedBy === "llm_output")) return;
    turn.captured = true;
    turn.capturedBy = hook;
    const payload: Obj = { hook, event: answer, ctx: { ...hookCtx, runId } };
    if (turn.prompt !== undefined) payload.prompt = turn.prompt;
    void request(settings, payload, true, logger);
  };
  api.on("llm_output", capture("llm_output"));
  api.on("agent_end", capture("agent_end"));

  api.on("after_compaction", (_event: unknown, ctx: unknown) => {
    const hookCtx = slimContext(ctx);
    if (!str(hookCtx.sessionId) && !str(hookCtx.sessionKey)) return;
    void request(settings, { hook: "after_compaction", event: {}, ctx: hookCtx }, true, logger);
  });
}

export default definePluginEntry({
  id: PLUGIN_ID,
  name: "Subconscious memory",
  description: "Recalls this project's memories before each turn and captures each turn after it (memory-core).",
  register,
});
