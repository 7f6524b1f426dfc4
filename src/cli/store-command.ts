// `pith store import FILE...`, `pith store export SESSION_ID [--out FILE]` and `pith list` on the
// PostgreSQL store. main.ts has parsed and checked the arguments and the store.
// replaced by the store implementation
import type { Logger } from "pino";
import type { SessionSummary } from "../session/index.js";
import type { StoreConfig } from "./store-config.js";

export async function runStoreCommand(
  args: { command: "import"; files: string[] } | { command: "export"; sessionId: string; out?: string },
  store: Extract<StoreConfig, { kind: "postgres" }>,
  log: Logger,
): Promise<number> {
  void args;
  void store;
  void log;
  process.stderr.write("pith: store commands are not available in this build\n");
  return 1;
}

export async function listStoreSessions(store: Extract<StoreConfig, { kind: "postgres" }>, opts: { cwd?: string }, log: Logger): Promise<SessionSummary[]> {
  void store;
  void opts;
  void log;
  throw new Error("not available in this build");
}
