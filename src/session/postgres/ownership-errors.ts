// Errors of the PostgreSQL session store's ownership layer. Each has a stable `code`, like
// SessionError, so the daemon can map it to a JSON-RPC error without matching on messages. They
// are separate classes (not SessionError codes) because they carry who owns the session now: the
// caller that lost a session needs that to redirect a client to the node that has it.

/** Who holds a session's write ownership, as the owners row says. */
export interface OwnerInfo {
  /** null after a release: nobody holds it, the epoch stays so it never goes back */
  nodeId: string | null;
  epoch: number;
  leaseExpires: Date;
}

/**
 * A write (append, renew, release) by a node that is no longer the session's owner at the epoch
 * it holds: another node took the session (a steal after the lease expired, or a forced one), or
 * it was released. Nothing was written. `owner` is the current owner when it could be read.
 */
export class Fenced extends Error {
  readonly code = "Fenced" as const;
  constructor(
    readonly sessionId: string,
    readonly owner?: OwnerInfo,
  ) {
    super(`session ${sessionId} is no longer owned by this writer${owner ? ` (owner: ${owner.nodeId ?? "none"}, epoch ${owner.epoch})` : ""}`);
    this.name = "Fenced";
  }
}

/** takeOwnership without `force` while another node holds a lease that has not expired. */
export class OwnedElsewhere extends Error {
  readonly code = "OwnedElsewhere" as const;
  constructor(
    readonly sessionId: string,
    readonly owner: OwnerInfo,
  ) {
    super(`session ${sessionId} is owned by node ${owner.nodeId} (epoch ${owner.epoch}) until ${owner.leaseExpires.toISOString()}`);
    this.name = "OwnedElsewhere";
  }
}

/**
 * The owner appended at a seq that is already taken: its idea of the next seq is wrong (two
 * appends in flight at once, or a seq not taken from takeOwnership / the last append). Nothing
 * was written. Never the result of a takeover: that is Fenced.
 */
export class SeqConflict extends Error {
  readonly code = "SeqConflict" as const;
  constructor(
    readonly sessionId: string,
    readonly seq: number,
  ) {
    super(`session ${sessionId} already has an entry at seq ${seq}`);
    this.name = "SeqConflict";
  }
}

/** takeOwnership of a session that has no sessions row. */
export class NoSuchSession extends Error {
  readonly code = "SessionNotFound" as const;
  constructor(readonly sessionId: string) {
    super(`no session ${sessionId} in the database`);
    this.name = "NoSuchSession";
  }
}
