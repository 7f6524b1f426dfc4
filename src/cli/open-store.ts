// The session store a daemon mode runs on, from its StoreConfig: the file store under
// $PITH_HOME/sessions, or the PostgreSQL store (its module, and with it `pg`, loaded only then).
import { join } from "node:path";
import type { Logger } from "pino";
import { FileSessionStore } from "../session/file-store.js";
import { defaultSessionsDir, pithHome } from "../session/paths.js";
import type { SessionStore } from "../session/store.js";
import { redactUrl, type StoreConfig } from "./store-config.js";

/** A connected store, or a message saying why there is none (for stderr, exit 1). */
export async function openStore(config: StoreConfig | undefined, log: Logger): Promise<SessionStore | string> {
  if (!config || config.kind === "file") return new FileSessionStore(defaultSessionsDir());
  const { PgSessionStore, defaultNodeId } = await import("../session/postgres/pg-store.js");
  const nodeId = config.nodeId ?? defaultNodeId();
  // how long an owner that stopped answering (paused, cut off) keeps its sessions (docs/fleet.md)
  const lease = Number(process.env.PITH_STORE_LEASE_MS);
  const leaseMs = Number.isInteger(lease) && lease >= 500 ? lease : undefined;
  try {
    const { nodeUrl, workspaceRoots } = config;
    const store = await PgSessionStore.connect({ url: config.url, nodeId, nodeUrl, workspaceRoots, spoolDir: join(pithHome(), "pg-spool", nodeId), logger: log, leaseMs });
    log.info({ store: store.location, nodeId, workspaceRoots }, "sessions are stored in PostgreSQL");
    return store;
  } catch (err) {
    return `cannot use the session store at ${redactUrl(config.url)}: ${(err as Error).message}`;
  }
}
