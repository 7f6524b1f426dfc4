// `pith models`: what this machine can use and why — each provider with its key and whether its
// server answered, then each model with its window and where the window comes from. Read from
// the settings in effect for the current directory, as a session started here would see them.
import { createLogger } from "../log/logger.js";
import type { DiscoveryState } from "../llm/discovery/index.js";
import { hasKey, type ResolvedProvider } from "../llm/provider-config.js";
import { HostModels } from "../host/models/host-models.js";
import { resolveSettings } from "../host/policy/settings.js";
import { printErr, printJsonLine, printOut } from "./terminal-out.js";

export async function runModelsCommand(o: { json: boolean; refresh: boolean; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<number> {
  const env = o.env ?? process.env;
  let settings;
  try {
    settings = resolveSettings(o.cwd ?? process.cwd(), env).settings;
  } catch (err) {
    printErr(`pith: ${(err as Error).message}\n`);
    return 1;
  }
  const sources = new HostModels(createLogger("silent"), undefined, () => env);
  try {
    const states = await sources.states(settings, o.refresh);
    const { providers, resolver, offline } = sources.for(settings);
    const models = resolver.list();
    if (o.json) {
      const rows = [...providers.values()].map((p) => ({ ...describe(p), server: states.get(p.name) ?? null }));
      printJsonLine({ providers: rows, models, offline });
      return 0;
    }
    for (const p of providers.values()) {
      printOut(`${p.name}  (${p.api}, ${p.baseUrl})\n  key: ${keyLine(p)}\n  server: ${serverLine(p, states.get(p.name))}\n`);
    }
    // the models a session can run now first (the list's order), then the ones that need a key, saying which
    const row = (m: (typeof models)[number]) => `    ${resolver.nameOf(m).padEnd(34)} ${String(m.contextWindow).padStart(9)} tokens  (${m.windowSource ?? "catalog"})`;
    printOut("\nmodels you can use:\n");
    for (const m of models.filter((x) => x.hasKey)) printOut(`${row(m)}\n`);
    const keyless = models.filter((x) => !x.hasKey);
    if (keyless.length > 0) printOut("\nneed a key:\n");
    for (const m of keyless) printOut(`${row(m)}  needs ${providers.get(m.provider)?.apiKeyEnv ?? "a key"}\n`);
    if (offline) printOut("no model is set and no vendor key is: sessions run the offline scripted demo\n");
    return 0;
  } finally {
    sources.close();
  }
}

function describe(p: ResolvedProvider) {
  return { name: p.name, api: p.api, baseUrl: p.baseUrl, apiKeyEnv: p.apiKeyEnv ?? null, hasKey: hasKey(p), problem: p.problem ?? null };
}

function keyLine(p: ResolvedProvider): string {
  if (p.problem) return `unusable: ${p.problem}`;
  if (p.apiKeyEnv === undefined) return "none needed";
  return hasKey(p) ? `${p.apiKeyEnv} is set` : `${p.apiKeyEnv} is not set`;
}

function serverLine(p: ResolvedProvider, state: DiscoveryState | undefined): string {
  if (state === undefined) return p.builtin ? "not asked (pith's catalog has its models)" : "not asked (no key)";
  switch (state.status) {
    case "ok":
      return `reachable (${state.server}): ${state.models.length} model${state.models.length === 1 ? "" : "s"}`;
    case "pending":
      return "did not answer within 2 s";
    case "unsupported":
      return `not asked: ${state.reason}`;
    default:
      return `unreachable: ${state.reason}`;
  }
}
