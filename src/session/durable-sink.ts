// Where a session's appended lines become durable when the local file is not the store: the
// PostgreSQL store keeps a local copy of each open session (the file SessionFile reads, fast and
// synchronous as on the file store) and hands every line it appends to a sink, which commits it to
// the shared log in order. Reads never wait for the sink; what is announced to clients does
// (SessionEvents holds events until the lines written before them are durable), and so do
// answers to requests that stored something. The file store has no sink: its file is the store,
// made durable by fsync.

/** One appended line, exactly as written to the local copy. */
export interface SinkLine {
  id: string;
  parentId: string | null;
  type: string;
  line: string;
}

/** Who owns a session now, as a sink learns it when it is fenced. */
export interface SessionOwner {
  /** null: released, nobody holds it */
  nodeId: string | null;
  /** the URL other nodes and clients reach it at, when it advertised one */
  url?: string;
  epoch?: number;
}

export interface DurableSink {
  /** Queues a line already written locally. Throws SessionMoved once the sink has been fenced. */
  accept(line: SinkLine): void;
  /** Lines accepted so far (a mark: whenDurable(mark) waits for every line up to it). */
  readonly accepted: number;
  /** Lines known durable. */
  readonly durable: number;
  /** Resolves once the first `mark` lines are durable; rejects (SessionMoved) if the sink was fenced first. */
  whenDurable(mark: number): Promise<void>;
  /** Set once another node owns the session: nothing accepted after the last durable line will ever be. */
  readonly fenced: SessionOwner | undefined;
  /** Called once, when the sink learns it was fenced. */
  onFenced(listener: (owner: SessionOwner) => void): void;
  /** Waits for every accepted line, then gives the session up (its next owner may take it at once). */
  close(): Promise<void>;
}
