// The compaction owner's ports: what it calls (each with one job), and the one it offers a run.
// The session builds them (live-session.ts): its store, its own settings, its models, a client's
// beforeCompact hook, its event stream. The run policy (run-hooks.ts) calls RunCompaction and
// knows nothing else of compaction.
import type { Logger } from "pino";
import type { CompactionSettings } from "../../compaction/index.js";
import type { ModelInfo, Provider, ProviderError } from "../../llm/types.js";
import type { SessionFile } from "../../session/session-file.js";
import type { BeforeCompactHook } from "../ports.js";
import type { SessionEmitter } from "../live/session-events.js";
import type { SessionSettings } from "../policy/session-settings.js";
import type { ContextFull } from "./context-full.js";
import type { LastRequest } from "./last-request.js";

/** The models a session's compactions use: the session's own now, another by name, each one's provider. */
interface CompactionModels {
  /** the session's model now (it can change between compactions) */
  current(): ModelInfo;
  resolve(id: string): ModelInfo;
  providerFor(model: ModelInfo): Provider;
  /** the system prompt and tool definitions in tokens: sent with every request */
  overheadTokens(): number;
}

/** What the compaction owner is built on. */
export interface CompactionPorts {
  sessionId: string;
  /** the session's store: the context is read from it, compaction and context_edit entries written to it */
  file: SessionFile;
  /** the session's own settings: the automatic-compaction switch, its threshold, the windows learned */
  stored: SessionSettings;
  /** the compaction settings the daemon runs with */
  settings: CompactionSettings;
  models: CompactionModels;
  /** a client's beforeCompact hook: let pith summarize, cancel, or store the client's summary */
  beforeCompact: BeforeCompactHook;
  /** the session's event stream: compaction_*, usage_update, error */
  events: SessionEmitter;
  /** the agent's last request as sent (conversation framing sends it again) */
  lastRequest?: LastRequest;
  logger: Logger;
}

/** Compaction's part in a run, as the run policy calls it. */
export interface RunCompaction {
  /** before each model call: old tool outputs pruned if a batch is due, then a compaction past the trigger (or the summary written ahead of time past the soft threshold) */
  beforeModelCall(signal: AbortSignal): Promise<void>;
  /** after the run's last model call: the context's size announced, then a compaction past the trigger */
  atRunEnd(signal: AbortSignal): Promise<void>;
  /**
   * The provider refused the context as too long: the window it implies is learned; then, if
   * `mayRetry` (the run has not retried after an overflow yet), a compaction ("retry": one was
   * stored) or, with automatic compaction off, the context is full.
   */
  afterOverflow(error: ProviderError, signal: AbortSignal, mayRetry: boolean): Promise<"retry" | "stop" | ContextFull>;
  /** the tokens left in the window for a reply */
  replyRoom(): number;
}
