// Drives the plugin's hook handlers the way OpenClaw calls them, for tests/test_plugin_js.py.
//
// stdin: {"plugin": "<folder with index.ts>", "registrations": N, "config": {...},
//         "steps": [{"registration": i, "hook": name, "event": {...}, "ctx": {...}} | {"sleepMs": n}],
//         "registerTwice": bool}
// stdout: {"registered": [[hook names] per registration], "results": [{hook, result, elapsedMs, ticks}]}
//
// Modify hooks (before_prompt_build) are awaited; observe hooks (llm_output, agent_end,
// after_compaction) are called without waiting, as OpenClaw's runVoidHook does. `ticks` counts
// a 5 ms interval timer firing while a handler ran: an event loop the handler blocked counts 0.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const scenario = JSON.parse(readFileSync(0, "utf8"));
const entry = (await import(pathToFileURL(`${scenario.plugin}/index.ts`).href)).default;

const registries = [];
for (let i = 0; i < scenario.registrations; i++) {
  const handlers = new Map();
  const api = {
    id: entry.id,
    pluginConfig: scenario.config,
    logger: { warn: () => {}, info: () => {}, debug: () => {}, error: () => {} },
    on: (name, handler) => {
      if (!handlers.has(name)) handlers.set(name, []);
      handlers.get(name).push(handler);
    },
  };
  entry.register(api);
  if (scenario.registerTwice) entry.register(api);
  registries.push(handlers);
}

const results = [];
for (const step of scenario.steps) {
  if (step.sleepMs) {
    await new Promise((resolve) => setTimeout(resolve, step.sleepMs));
    continue;
  }
  const handlers = registries[step.registration ?? 0].get(step.hook) ?? [];
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 5);
  const started = performance.now();
  const outcomes = [];
  for (const handler of handlers) {
    const returned = handler(step.event, step.ctx);
    outcomes.push(step.hook === "before_prompt_build" ? await returned : null);
  }
  const elapsedMs = performance.now() - started;
  clearInterval(ticker);
  results.push({ hook: step.hook, result: outcomes[0] ?? null, handlers: handlers.length, elapsedMs, ticks });
}

const registered = registries.map((handlers) => [...handlers.keys()].sort());
process.stdout.write(JSON.stringify({ registered, results }));
