// The session store port: where sessions live and who may write them. SessionHost works only
// through it. Two implementations: the file store (file-store.ts: one JSONL file per session
// under $PITH_HOME/sessions, one writer per file through a pid lock, so one host), and the
// PostgreSQL store (postgres/pg-store.ts: one database shared by several daemons, one writer per
// session through fenced ownership). Both hand back a SessionFile open for writing: the
// in-memory tree with synchronous reads, over the store's file or a local copy of its log.
import type { SessionSummary } from "./list.js";
import type { SessionFile } from "./session-file.js";
import type { SessionHeader } from "./types.js";

/** A session to open: by id, or by what a listing or getState called its file. */
export type SessionRef = { sessionId: string } | { sessionFile: string };

export interface SessionStore {
  readonly kind: "file" | "postgres";
  /** where sessions live, for messages and logs (a folder, or the database without its password) */
  readonly location: string;
  /** A new empty session, open for writing; its header is durable before this resolves. */
  create(options: { cwd: string }): Promise<SessionFile>;
  /**
   * Opens a session for writing: takes it (the file's lock; a shared store's ownership). Refused
   * with SessionLocked or SessionMoved while another live writer holds it. `checkHeader` sees the
   * session's header before anything is taken or changed, and refuses it by throwing.
   */
  open(ref: SessionRef, options?: { checkHeader?: (header: SessionHeader) => void }): Promise<SessionFile>;
  /** Every session (or a cwd's), newest first. */
  list(options?: { cwd?: string }): Promise<SessionSummary[]>;
  /** Removes a session not open here; refused while another live writer holds it. Returns what was deleted. */
  delete(sessionId: string): Promise<{ deleted: string }>;
  /** A new session holding the path root -> entryId of `from` (see SessionFile.forkContentsAsync), open for writing. */
  fork(from: SessionFile, entryId: string): Promise<SessionFile>;
  /** The session id a ref names, when the store can tell without reading (a shared store's `pg:<id>`). */
  sessionIdOf?(ref: SessionRef): string | undefined;
  /** A shared store: where other nodes reach this daemon, learnt once it listens (when no URL was configured). */
  advertise?(url: string): Promise<void>;
  /** Ends the store's own work (a shared store: its node's presence and connections). Sessions are closed first by the host. */
  close(): Promise<void>;
}
