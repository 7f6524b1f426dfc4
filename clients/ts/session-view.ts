// One session as a client shows it, as data: what getState and getMessages said, then every
// event after them. reduceSessionView is the whole of "what does this event change"; a UI keeps
// only drawing (clients/web renders a SessionView; a terminal client could render the same).
//
// Deterministic and side-effect free: no clock, no I/O. Immutable like the transcript inside it
// (transcript-state.ts): a new view when an event changed something, unchanged parts shared.
// What a UI does *because* of an event (refetch the tree after a stored message, ...) is the
// UI's business. Imports only types from protocol/ (no zod in a browser bundle).
import type { AgentMessage, EventLine, PreparedCompaction, ResultOf } from "../../protocol/index.js";
import { withMcpServer, type McpServerInfo } from "./mcp-servers.js";
import { addNotice, reduceTranscript, transcriptFrom, type TranscriptState } from "./transcript-state.js";

export type SessionState = ResultOf<"getState">;
export type QueuedPrompt = NonNullable<SessionState["queue"]>[number];

const NO_QUEUE: readonly QueuedPrompt[] = [];

/** A summary written ahead of time (before the compaction that uses it): being written, or ready; null: none. */
export type PreparedStatus = PreparedCompaction["status"] | null;

export interface ContextSize {
  /** as the model sees it */
  readonly tokens: number;
  /** the window in effect */
  readonly window: number;
  /** automatic compaction runs past this; older servers do not send it (see contextMeter) */
  readonly threshold?: number;
}

export interface SessionView {
  readonly sessionId: string;
  /** the last event applied: events with this seq or a lower one were seen (a replay) and change nothing */
  readonly seq: number;
  /** the last getState result: name, cwd, model, ... (the fields below are kept live by events) */
  readonly info: SessionState;
  readonly running: boolean;
  /** the run's current model call, from 1; 0 between runs */
  readonly turn: number;
  readonly compacting: boolean;
  /** navigateTree is summarizing the branch being left */
  readonly summarizing: boolean;
  readonly autoCompaction: boolean;
  readonly context: ContextSize;
  readonly prepared: PreparedStatus;
  /** prompts queued while a run is in progress (getState, then queue_update) */
  readonly pending: { readonly steer: number; readonly followUp: number };
  /** those prompts with their text, in the order accepted (empty from a server that does not send them) */
  readonly queue: readonly QueuedPrompt[];
  /** its MCP servers (listMcpServers, then mcp_server events) */
  readonly mcpServers: readonly McpServerInfo[];
  readonly transcript: TranscriptState;
}

export interface SessionViewOptions {
  /** the seq `state` and `messages` cover (subscribe's lastSeq, taken before fetching them) */
  lastSeq?: number;
  /** shown while the transcript is empty */
  placeholder?: string;
  /**
   * the view being replaced, if of the same session: what no fetch reports (summaries being
   * written ahead of time, a branch summary in progress) carries over
   */
  previous?: SessionView;
  /** listMcpServers' answer, fetched with them (absent: the previous view's, else none) */
  mcpServers?: readonly McpServerInfo[];
}

/** The view of a session from getState (or openSession's state) and getMessages. */
export function sessionViewFrom(state: SessionState, messages: readonly AgentMessage[], options: SessionViewOptions = {}): SessionView {
  const previous = options.previous?.sessionId === state.sessionId ? options.previous : undefined;
  const transcript = transcriptFrom(messages, {
    ...(options.placeholder !== undefined ? { placeholder: options.placeholder } : {}),
    ...(previous ? { liveSummaries: previous.transcript.liveSummaries } : {}),
    idle: !state.isRunning,
  });
  const fromState = stateFields(state);
  const mcpServers = options.mcpServers ?? previous?.mcpServers ?? [];
  return { sessionId: state.sessionId, seq: options.lastSeq ?? 0, ...fromState, turn: 0, summarizing: previous?.summarizing ?? false, mcpServers, transcript };
}

/** A later getState: its flags, context size, queue and prepared summary replace the view's. */
export function withState(view: SessionView, state: SessionState): SessionView {
  if (state.sessionId !== view.sessionId) return view;
  return { ...view, ...stateFields(state) };
}

/** setAutoCompactionEnabled's answer (no event reports it). */
export function withAutoCompaction(view: SessionView, enabled: boolean): SessionView {
  if (view.autoCompaction === enabled && view.info.autoCompactionEnabled === enabled) return view;
  return { ...view, autoCompaction: enabled, info: { ...view.info, autoCompactionEnabled: enabled } };
}

/** A notice from the client itself (a request that failed, a note) at the end of the transcript. */
export function withNotice(view: SessionView, kind: "error" | "warn" | "info", text: string, tag: string = kind): SessionView {
  return { ...view, transcript: addNotice(view.transcript, kind, text, tag) };
}

function stateFields(st: SessionState): Pick<SessionView, "info" | "running" | "compacting" | "autoCompaction" | "context" | "prepared" | "pending" | "queue"> {
  return {
    info: st,
    running: st.isRunning,
    compacting: st.isCompacting,
    autoCompaction: st.autoCompactionEnabled,
    context: { tokens: st.contextTokens, window: st.contextWindow, ...(st.threshold !== undefined ? { threshold: st.threshold } : {}) },
    prepared: st.preparedCompaction ? (st.preparedCompaction.status === "ready" ? "ready" : "summarizing") : null,
    pending: st.pending,
    queue: st.queue ?? NO_QUEUE,
  };
}

/** The view after one event (`{type: name, ...params}`). Another session's events, and ones at or below view.seq (a replay, or covered by the fetch), change nothing. */
export function reduceSessionView(view: SessionView, ev: EventLine): SessionView {
  if (ev.sessionId !== view.sessionId || ev.seq <= view.seq) return view;
  const next: { -readonly [K in keyof SessionView]: SessionView[K] } = { ...view, seq: ev.seq };
  switch (ev.type) {
    case "agent_start":
      next.running = true;
      next.turn = 0;
      break;
    case "turn_start":
      next.turn = ev.turn;
      break;
    case "turn_end":
      break;
    case "agent_end":
      next.running = false;
      next.turn = 0;
      break;
    case "compaction_start":
      next.compacting = true;
      // a prepared summary is applied now (or a new one written): nothing waits any more
      next.prepared = null;
      break;
    case "compaction_update":
      if (ev.reason === "prepare") next.prepared = ev.phase === "ready" ? "ready" : ev.phase === "discarded" ? null : "summarizing";
      break;
    case "compaction_end":
      next.compacting = false;
      break;
    case "branch_summary_start":
      next.summarizing = true;
      break;
    case "branch_summary_end":
      next.summarizing = false;
      break;
    case "mcp_server":
      next.mcpServers = withMcpServer(view.mcpServers, ev.server);
      break;
    case "queue_update":
      next.queue = ev.queue;
      next.pending = { steer: ev.queue.filter((q) => q.delivery === "steer").length, followUp: ev.queue.filter((q) => q.delivery === "followUp").length };
      break;
    case "usage_update":
      next.context = { tokens: ev.contextTokens, window: ev.contextWindow, ...(ev.threshold !== undefined ? { threshold: ev.threshold } : {}) };
      break;
  }
  // prompts_dropped changes no message: a client says it its own way (the web UI, as a notice); nor
  // does the queue (shown beside the transcript); a question withdrawn is no part of the transcript
  // either (the page closes its dialog), nor an MCP server's state
  if (ev.type !== "agent_start" && ev.type !== "turn_start" && ev.type !== "turn_end" && ev.type !== "usage_update" && ev.type !== "prompts_dropped" && ev.type !== "queue_update" && ev.type !== "request_resolved" && ev.type !== "mcp_server") {
    const m = view.info.model;
    next.transcript = reduceTranscript(view.transcript, ev, { api: "", provider: m.provider ?? "", model: m.id });
  }
  return next;
}

// ---- derived ---------------------------------------------------------------------------------------

/** The auto-compaction threshold as the daemon computes it: window - min(reserve, window/2). */
export function compactionThreshold(contextWindow: number, reserveTokens = 16384): number {
  return contextWindow - Math.min(reserveTokens, Math.floor(contextWindow / 2));
}

export interface ContextMeter {
  tokens: number;
  window: number;
  threshold: number;
  /** of the window, 0 to 100 */
  percent: number;
  /** past the threshold: automatic compaction is due */
  over: boolean;
}

/** The context meter: the server's threshold, or (older servers) the one computed from the settings' reserve. */
export function contextMeter(context: ContextSize, reserveTokens?: number): ContextMeter {
  const { tokens, window } = context;
  const threshold = context.threshold ?? compactionThreshold(window, reserveTokens);
  return { tokens, window, threshold, percent: window > 0 ? Math.min(100, (tokens / window) * 100) : 0, over: tokens > threshold };
}
