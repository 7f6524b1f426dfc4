// Which session store a command uses, from --store / --node-id / --node-url / --cluster-token /
// --workspace-root and their environment variables (PITH_STORE, PITH_NODE_ID, PITH_NODE_URL,
// PITH_CLUSTER_TOKEN, PITH_WORKSPACE_ROOTS; a flag wins over its variable). The two secrets, the
// database URL and the cluster token, may also come from a file (--store-file,
// --cluster-token-file: secret-args.ts), which keeps them out of the process's arguments. The file store is the default; a postgres:// or postgresql:// URL selects
// the PostgreSQL store, and only then do the node flags mean anything: given with the file store
// they are a usage error (their variables are then ignored, being ambient rather than asked for).
import { delimiter, isAbsolute, resolve } from "node:path";
import { redactUrl } from "../session/postgres/redact-url.js";
import { secretSetting } from "./secret-args.js";

export { redactUrl };

/** The session files under $PITH_HOME/sessions. */
interface FileStoreConfig {
  kind: "file";
}

/** A PostgreSQL database shared by the nodes of a cluster. */
interface PostgresStoreConfig {
  kind: "postgres";
  /** the connection URL, as given (postgres://... or postgresql://...) */
  url: string;
  /** this node's id in the cluster ([A-Za-z0-9_.-], 1 to 64 characters) */
  nodeId?: string;
  /** where the other nodes reach this one (ws:// or wss://) */
  nodeUrl?: string;
  /** the secret the nodes show each other (A-Z a-z 0-9 _ -) */
  clusterToken?: string;
  /** the directories this node reaches (absolute, resolved): it takes only sessions whose cwd is under one */
  workspaceRoots?: string[];
}

export type StoreConfig = FileStoreConfig | PostgresStoreConfig;

const NODE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const CLUSTER_TOKEN = /^[A-Za-z0-9_-]+$/;

/** The flags that only make sense with the PostgreSQL store, and their variables. */
const NODE_SETTINGS = [
  ["--node-id", "PITH_NODE_ID"],
  ["--node-url", "PITH_NODE_URL"],
  ["--cluster-token", "PITH_CLUSTER_TOKEN"],
  ["--cluster-token-file", "PITH_CLUSTER_TOKEN"],
] as const;

/**
 * A libpq connection URI. WHATWG URL checks it (a bad port, a space), except the form without a
 * host that connects over a unix socket (`postgresql://user@/db?host=/socket/dir`), which it refuses.
 */
function postgresUrl(value: string): boolean {
  if (!/^postgres(ql)?:\/\//i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return /^postgres(ql)?:\/\/([^@/\s]*@)?\/[^\s]*$/i.test(value);
  }
}

function wsUrl(value: string): boolean {
  if (!/^wss?:\/\//i.test(value)) return false;
  try {
    const { protocol, host } = new URL(value);
    return (protocol === "ws:" || protocol === "wss:") && host !== "";
  } catch {
    return false;
  }
}

/**
 * --workspace-root's values (or PITH_WORKSPACE_ROOTS split at the path delimiter, empty parts
 * skipped) resolved, undefined when neither says, or a usage error.
 */
function workspaceRoots(flags: string[], env: NodeJS.ProcessEnv): string[] | string | undefined {
  const fromFlags = flags.length > 0;
  const values = fromFlags ? flags : (env.PITH_WORKSPACE_ROOTS ?? "").split(delimiter).filter((p) => p !== "");
  if (values.length === 0) return undefined;
  const bad = values.find((p) => !isAbsolute(p));
  if (bad !== undefined) return `bad ${fromFlags ? "--workspace-root" : "PITH_WORKSPACE_ROOTS"}: ${bad || '""'} (an absolute path)`;
  return [...new Set(values.map((p) => resolve(p)))];
}

/**
 * The store the flags (`get("--store")` etc.: undefined when not given) and the environment ask
 * for, or a usage error message. `all` gives a repeated flag's values; it is passed only for the
 * commands that take --workspace-root (the daemon modes): for the others PITH_WORKSPACE_ROOTS is
 * not read.
 */
export function storeConfigFrom(get: (flag: string) => string | undefined, env: NodeJS.ProcessEnv, all?: (flag: string) => string[]): StoreConfig | string {
  const given = secretSetting(get, env, { flag: "--store", fileFlag: "--store-file", variable: "PITH_STORE" });
  if (typeof given === "string") return given;
  const value = given?.value;
  const source = given?.source ?? "PITH_STORE";
  const rootFlags = all?.("--workspace-root") ?? [];
  if (value === undefined || value === "file") {
    const given = NODE_SETTINGS.find(([name]) => get(name) !== undefined);
    if (given) return `${given[0]} needs a PostgreSQL store (--store postgres://... or PITH_STORE)`;
    if (rootFlags.length > 0) return "--workspace-root needs a PostgreSQL store (--store postgres://... or PITH_STORE)";
    return { kind: "file" };
  }
  if (!postgresUrl(value)) return `bad ${source}: ${redactUrl(value)} (postgres://... or file)`;
  const store: PostgresStoreConfig = { kind: "postgres", url: value };
  const setting = (name: string, variable: string): [string, string] | undefined => {
    const v = get(name);
    if (v !== undefined) return [v, name];
    const e = env[variable];
    return e ? [e, variable] : undefined;
  };
  const nodeId = setting("--node-id", "PITH_NODE_ID");
  if (nodeId) {
    if (!NODE_ID.test(nodeId[0])) return `bad ${nodeId[1]}: ${nodeId[0] || '""'} (1 to 64 of A-Z a-z 0-9 _ . -)`;
    store.nodeId = nodeId[0];
  }
  const nodeUrl = setting("--node-url", "PITH_NODE_URL");
  if (nodeUrl) {
    if (!wsUrl(nodeUrl[0])) return `bad ${nodeUrl[1]}: ${redactUrl(nodeUrl[0])} (a ws:// or wss:// URL)`;
    store.nodeUrl = nodeUrl[0];
  }
  const token = secretSetting(get, env, { flag: "--cluster-token", fileFlag: "--cluster-token-file", variable: "PITH_CLUSTER_TOKEN" });
  if (typeof token === "string") return token;
  if (token) {
    // the token is a secret: the message does not repeat it
    if (!CLUSTER_TOKEN.test(token.value)) return `bad ${token.source}: it must be non-empty and use only A-Z a-z 0-9 _ -`;
    store.clusterToken = token.value;
  }
  if (all) {
    const roots = workspaceRoots(rootFlags, env);
    if (typeof roots === "string") return roots;
    if (roots) store.workspaceRoots = roots;
  }
  return store;
}

/** Where the sessions are, for messages (no password). */
export function describeStore(store: StoreConfig, sessionsDir: string): string {
  return store.kind === "file" ? sessionsDir : redactUrl(store.url);
}
