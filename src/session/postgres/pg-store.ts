// The PostgreSQL session store (store.ts): one database shared by several daemons. Each daemon is
// a node (nodes.ts: an advisory lock and a heartbeat say it is alive); a node writes a session
// only while it owns it (ownership.ts: a lease and an epoch that fences a deposed writer). An open
// session is a local copy (spool.ts) read by SessionFile as any file, whose appended lines a
// PgSink commits in order. `pg` is loaded here only when this store is configured (pool.ts).
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Pool } from "pg";
import type { Logger } from "pino";
import type { SessionOwner } from "../durable-sink.js";
import { SessionError } from "../session-error.js";
import { checkSessionId } from "../ids.js";
import type { SessionSummary } from "../list.js";
import { SessionFile } from "../session-file.js";
import type { SessionRef, SessionStore } from "../store.js";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../types.js";
import { NoSuchSession, OwnedElsewhere, type OwnerInfo } from "./ownership-errors.js";
import { migrate } from "./migrations.js";
import { DEFAULT_DEAD_AFTER_MS, registerNode, type NodePresence } from "./nodes.js";
import { DEFAULT_LEASE_MS, releaseOwnership, takeOwnership, type Ownership } from "./ownership.js";
import { listStoredSessions, PG_LOCATOR_PREFIX } from "./listing.js";
import { insertSession, sessionLinesOf } from "./pg-interop.js";
import { parseObject } from "../listing-fields.js";
import { PgSink } from "./pg-sink.js";
import { redactUrl } from "./redact-url.js";
import { openPool } from "./pool.js";
import { createSession } from "./sessions.js";
import { prepareSpoolDir, spoolPath, writeSpool } from "./spool.js";
import { cannotCreate, checkReach, covers } from "./workspace-roots.js";

export interface PgStoreOptions {
  /** postgres://user:password@host:port/db */
  url: string;
  /** this daemon's id among the nodes (default: host name and pid) */
  nodeId?: string;
  /** where other nodes and clients reach this one (ws://host:port) */
  nodeUrl?: string;
  /** this node's local copies of open sessions */
  spoolDir: string;
  logger: Logger;
  leaseMs?: number;
  heartbeatMs?: number;
  deadAfterMs?: number;
  /** the directories (absolute) this node reaches: it takes only sessions whose cwd is under one; undefined: any */
  workspaceRoots?: string[];
}


/** A node id from the host name and pid, in the characters node ids allow. */
export function defaultNodeId(): string {
  return `${hostname().replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 40)}-${process.pid}`;
}

export class PgSessionStore implements SessionStore {
  readonly kind = "postgres" as const;
  readonly location: string;
  readonly nodeId: string;

  private constructor(
    private readonly pool: Pool,
    private readonly node: NodePresence,
    private readonly options: PgStoreOptions,
  ) {
    this.nodeId = node.nodeId;
    this.location = redactUrl(options.url);
  }

  /** Connects, applies the schema's migrations and registers this node (NodeLockHeld if its id is live elsewhere). */
  static async connect(options: PgStoreOptions): Promise<PgSessionStore> {
    const log = options.logger;
    const pool = await openPool({ connectionString: options.url, max: 8 }, (err) => log.warn({ err }, "a session store connection failed"));
    try {
      await migrate(pool);
      const nodeId = options.nodeId ?? defaultNodeId();
      const node = await registerNode({ connectionString: options.url }, nodeId, {
        url: options.nodeUrl,
        roots: options.workspaceRoots,
        heartbeatMs: options.heartbeatMs,
        onError: (err) => log.warn({ err }, "the node heartbeat failed; retrying"),
      });
      prepareSpoolDir(options.spoolDir);
      return new PgSessionStore(pool, node, options);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
  }

  /** The pool, for store commands (import, export) run beside a daemon's work. */
  get db(): Pool {
    return this.pool;
  }

  async create(options: { cwd: string }): Promise<SessionFile> {
    const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id: randomUUID(), timestamp: new Date().toISOString(), cwd: resolve(options.cwd) };
    if (!covers(this.options.workspaceRoots, header.cwd)) throw cannotCreate(header.cwd, this.options.workspaceRoots ?? []);
    await createSession(this.pool, header);
    return this.open({ sessionId: header.id });
  }

  async open(ref: SessionRef, options: { checkHeader?: (header: SessionHeader) => void } = {}): Promise<SessionFile> {
    const sessionId = this.idOf(ref);
    const row = await this.pool.query<{ header: string; cwd: string; has_first: boolean }>("SELECT header, cwd, first_message IS NOT NULL AS has_first FROM sessions WHERE id = $1", [sessionId]);
    if (row.rows.length === 0) throw notFound(sessionId);
    // the header the local copy will carry (not the cwd column): checked before it is taken
    const header = parseObject(row.rows[0].header);
    if (options.checkHeader && header) options.checkHeader(header as unknown as SessionHeader);
    // its tools run in its cwd on this node's file system: taken only by a node that reaches it
    const { workspaceRoots: roots, deadAfterMs } = this.options;
    await checkReach(this.pool, { sessionId, cwd: row.rows[0].cwd, selfId: this.nodeId, roots, deadAfterMs });
    const own = await this.take(sessionId);
    const file = spoolPath(this.options.spoolDir, sessionId);
    let sink: PgSink | undefined;
    try {
      await writeSpool(this.pool, sessionId, row.rows[0].header, file, own.nextSeq);
      sink = new PgSink(this.pool, own, {
        logger: this.options.logger,
        leaseMs: this.options.leaseMs,
        hasFirstMessage: row.rows[0].has_first,
        urlOf: (nodeId) => this.urlOf(nodeId),
        onClosed: () => rmSync(file, { force: true }),
      });
      return await SessionFile.openAsync(file, { sink, locator: PG_LOCATOR_PREFIX + sessionId });
    } catch (err) {
      if (sink) await sink.close().catch(() => {});
      else await releaseOwnership(this.pool, own).catch(() => {});
      throw err;
    }
  }

  list(options: { cwd?: string } = {}): Promise<SessionSummary[]> {
    return listStoredSessions(this.pool, options);
  }

  advertise(url: string): Promise<void> {
    return this.node.setUrl(url);
  }

  /** Taken first (refused while a live node owns it), so no writer is left appending to what is deleted. */
  async delete(sessionId: string): Promise<{ deleted: string }> {
    checkSessionId(sessionId, "the session store");
    await this.take(sessionId);
    const res = await this.pool.query("DELETE FROM sessions WHERE id = $1", [sessionId]);
    if (res.rowCount !== 1) throw notFound(sessionId);
    return { deleted: PG_LOCATOR_PREFIX + sessionId };
  }

  async fork(from: SessionFile, entryId: string): Promise<SessionFile> {
    const fork = await from.forkContentsAsync(entryId, { sessionsDir: this.options.spoolDir });
    const id = await insertSession(this.pool, sessionLinesOf(fork.lines.join("\n") + "\n", from.locator));
    return this.open({ sessionId: id });
  }

  async close(): Promise<void> {
    await this.node.close();
    await this.pool.end();
  }

  /** Ownership of the session for this node, or SessionMoved naming the live owner. */
  private async take(sessionId: string): Promise<Ownership> {
    try {
      return await takeOwnership(this.pool, sessionId, this.nodeId, { leaseMs: this.options.leaseMs ?? DEFAULT_LEASE_MS, deadAfterMs: this.options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS });
    } catch (err) {
      if (err instanceof NoSuchSession) throw notFound(sessionId);
      if (err instanceof OwnedElsewhere) throw await this.moved(sessionId, err.owner);
      throw err;
    }
  }

  private async moved(sessionId: string, owner: OwnerInfo): Promise<SessionError> {
    const url = owner.nodeId ? await this.urlOf(owner.nodeId).catch(() => undefined) : undefined;
    const who: SessionOwner = { nodeId: owner.nodeId, ...(url ? { url } : {}), epoch: owner.epoch };
    return new SessionError("SessionMoved", `session ${sessionId} is owned by node ${owner.nodeId}${url ? ` (${url})` : ""}`, { sessionId, owner: who });
  }

  private async urlOf(nodeId: string): Promise<string | undefined> {
    const res = await this.pool.query<{ url: string | null }>("SELECT url FROM nodes WHERE id = $1", [nodeId]);
    return res.rows[0]?.url ?? undefined;
  }

  sessionIdOf(ref: SessionRef): string | undefined {
    if ("sessionId" in ref) return ref.sessionId;
    return ref.sessionFile.startsWith(PG_LOCATOR_PREFIX) ? ref.sessionFile.slice(PG_LOCATOR_PREFIX.length) : undefined;
  }

  /** A session id from a ref: the id, or `pg:<id>`; a file path is not something this store holds. */
  private idOf(ref: SessionRef): string {
    const id = this.sessionIdOf(ref);
    // a row imported before ids were checked, or a client's `pg:` name, is refused before its copy is made
    if (id !== undefined) return checkSessionId(id, "the session store");
    const file = (ref as { sessionFile: string }).sessionFile;
    throw new SessionError("NotASession", `this daemon keeps sessions in PostgreSQL, not in files: bring ${file} in with \`pith store import\`, then open it by id`, {
      file,
      reason: "StoreHasNoFiles",
    });
  }
}

function notFound(sessionId: string): SessionError {
  return new SessionError("SessionNotFound", `no session ${sessionId} in the store`, { sessionId });
}
