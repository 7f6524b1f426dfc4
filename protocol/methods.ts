// Client -> server methods: params (checked strictly: wrong types, missing keys and unknown keys
// are -32602) and results. Params are always by name (an object); absent params mean {}.
import { z } from "zod";
import { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./version.js";
import { CompactionThreshold, SandboxMode, Settings, SettingsPatch, SettingsWarning } from "./settings.js";
import {
  AgentMessage,
  CompactionCost,
  CompactionResult,
  Id,
  ImageInput,
  SessionId,
  PermissionMode,
  QueuedPrompt,
  ThinkingLevel,
} from "./messages.js";
import { PendingRequest } from "./server-requests.js";
import { McpServerInfo, McpServers } from "./mcp.js";

// -- shared pieces --

const SessionRef = { sessionId: SessionId };

const NonNegInt = z.int().nonnegative();

/** Hooks a client can serve (server -> client requests other than requestPermission). */
export const HookName = z.enum(["beforeCompact"]);

const ClientCapabilities = z.strictObject({
  /** the client can answer requestPermission */
  permissions: z.boolean().default(false),
  /** hooks the client serves */
  hooks: z.array(HookName).default([]),
});

const ServerCapabilities = z.object({
  /** the server will send requestPermission to this client (it said it can answer) */
  permissions: z.boolean(),
  /** hooks the server will call on this client */
  hooks: z.array(HookName),
  /** events kept per session for subscribe {afterSeq} (an upper bound: a size limit may keep fewer) */
  replayBufferSize: NonNegInt,
});

const ModelSummary = z.object({
  /** the id as its provider knows it; `provider/id` names it everywhere (setModel, createSession, ...) */
  id: z.string(),
  name: z.string().optional(),
  provider: z.string(),
  contextWindow: NonNegInt,
  maxOutputTokens: NonNegInt,
  /** where contextWindow comes from: the user's settings, the server's report, pith's catalog, or a conservative default */
  windowSource: z.enum(["settings", "discovered", "catalog", "learned", "default"]).optional(),
  /** the provider's key is set (always true for one that needs none) */
  hasKey: z.boolean().optional(),
});

/** A summary written ahead of time, not yet applied (getState's preparedCompaction). */
export const PreparedCompaction = z.object({
  compactionId: z.string(),
  status: z.enum(["summarizing", "ready"]),
  /** where it cuts: the first entry kept verbatim */
  firstKeptEntryId: Id,
  /** the context when it was prepared */
  tokensBefore: z.number(),
  /** summarizer requests sent for it so far */
  requests: NonNegInt,
});

/** getState's result; also `state` in createSession / openSession / forkSession results. */
export const SessionState = z.object({
  sessionId: Id,
  sessionFile: z.string(),
  cwd: z.string(),
  name: z.string().optional(),
  model: z.object({
    id: z.string(),
    contextWindow: NonNegInt,
    provider: z.string().optional(),
    name: z.string().optional(),
  }),
  thinkingLevel: ThinkingLevel.optional(),
  permissionMode: PermissionMode.optional(),
  isRunning: z.boolean(),
  isCompacting: z.boolean(),
  autoCompactionEnabled: z.boolean(),
  /** the entry new messages attach to; null for an empty session */
  leafId: Id.nullable(),
  /** messages in the context (what getMessages returns) */
  messageCount: NonNegInt,
  /** the context's size in tokens as the model sees it: the last usage report plus estimates after it */
  contextTokens: z.number().nonnegative(),
  /** the window in effect: the model's, or smaller if the endpoint said so (a limit learned from an overflow) */
  contextWindow: NonNegInt,
  /** automatic compaction runs when contextTokens passes this */
  threshold: NonNegInt.optional(),
  /** the threshold setting in effect, as set (the session's own, else the settings'): up to 1 a fraction of the window, above 1 tokens; absent: reserveTokens alone */
  compactionThreshold: CompactionThreshold.optional(),
  /** a summary written ahead of time, not yet applied (nothing of it is stored until then) */
  preparedCompaction: PreparedCompaction.optional(),
  /** prompts queued while a run is in progress (kept across a crash: see PROTOCOL.md) */
  pending: z.object({ steer: NonNegInt, followUp: NonNegInt }),
  /** those prompts, with their text, in the order accepted (added in version 1; queue_update reports changes) */
  queue: z.array(QueuedPrompt).optional(),
  /** questions to clients waiting for an answer (added in version 1; absent when none): see "Server → client requests" */
  pendingRequests: z.array(PendingRequest).optional(),
  /**
   * this live incarnation of the session's event stream: seq numbers restart when a session is
   * reopened, so subscribe {afterSeq} is only meaningful with the streamId it was counted in
   */
  streamId: z.string(),
  /** how the model's bash commands are confined (see docs/security.md) */
  sandbox: SandboxMode.optional(),
});

/** createSession / openSession / forkSession result. */
export const SessionOpened = z.object({
  sessionId: Id,
  sessionFile: z.string(),
  state: SessionState,
});

const SessionSummary = z.object({
  id: Id,
  file: z.string(),
  cwd: z.string(),
  name: z.string().optional(),
  /** the session this one was forked from (its file) */
  parentSession: z.string().optional(),
  /** header timestamp, ISO 8601 */
  created: z.string(),
  /** latest entry's timestamp, ISO 8601 */
  modified: z.string(),
  messageCount: NonNegInt,
  /** text of the first user message, or "" */
  firstMessage: z.string(),
});

const TreeNode = z.object({
  id: Id,
  parentId: Id.nullable(),
  /** the entry type: message, compaction, branch_summary, model_change, ... */
  type: z.string(),
  /** ISO 8601 */
  timestamp: z.string(),
  /** message role, for message entries */
  role: z.string().optional(),
  preview: z.string(),
  label: z.string().optional(),
  /** nesting level for display: 0 for roots, one more below each fork */
  depth: NonNegInt,
});

// -- the methods --

/**
 * How a method runs beside the others: what the server takes before calling its handler
 * (src/host/operations/perform.ts), and whether it waits for durability before answering (every scope
 * but "read"). PROTOCOL.md's scope table is generated from these descriptions and the rows below.
 */
export const METHOD_SCOPES = {
  read: "answered at once from the current state, even while the session is busy; changes nothing stored",
  session: "a small change to one session, applied at once even while it is busy",
  exclusive:
    "one at a time per session: refused with -32011 while another exclusive operation of the session is in progress (never queued behind it); a `prompt` with `delivery` joins the running run instead",
  global: "the daemon's set of sessions, its settings, or the connection",
} as const;

export type MethodScope = keyof typeof METHOD_SCOPES;

/**
 * What holds an exclusive method's session while it runs: the SessionBusy error names it to the
 * next caller ("the session is busy: a compaction is in progress").
 */
export type Activity = "run" | "compaction" | "tree move" | "bash command" | "change";

/**
 * A method's row: its scope and the rules that go with it, read by the host's operation layer
 * (src/host/operations) and the JSON-RPC front, so no front keeps a list of method names of its own.
 */
type MethodDef = {
  params: z.ZodType;
  result: z.ZodType;
  /** the relay forgets a relayed session's route once the owner answered this (the session is gone there) */
  endsRoute?: true;
  /** why a node link may not call this one, though it names a session (see src/rpc/link-scope.ts) */
  notOverNodeLink?: string;
} & (
  | { scope: Exclude<MethodScope, "exclusive"> }
  | {
      scope: "exclusive";
      holds: Activity;
      /** a call while a run is in progress joins that run when this param is given, and is refused with `hint` when not */
      joinsRun?: { param: string; hint: string };
    }
);

const initialize = {
  scope: "global",
  params: z.strictObject({
    protocolVersion: z.int().refine((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v), {
      message: `unsupported protocol version; this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    }),
    clientInfo: z.strictObject({ name: z.string().min(1), version: z.string().optional() }),
    capabilities: ClientCapabilities.default({ permissions: false, hooks: [] }),
  }),
  result: z.object({
    protocolVersion: z.literal(PROTOCOL_VERSION),
    serverInfo: z.object({ name: z.string(), version: z.string() }),
    capabilities: ServerCapabilities,
  }),
} satisfies MethodDef;

/**
 * createSession / openSession `mcpServers` (added in version 1): MCP servers the client gives the
 * session, beside the user's settings' (the client's entry wins a name both have); they run as the
 * user, outside the sandbox, like the settings' (docs/mcp.md)
 */
const ClientMcpServers = { mcpServers: McpServers.optional() };

const createSession = {
  scope: "global",
  params: z.strictObject({
    /** working directory of the session (default: the daemon's); relative paths resolve against the daemon's */
    cwd: z.string().min(1).optional(),
    /** model id (default: the settings' model) */
    model: z.string().min(1).optional(),
    name: z.string().optional(),
    ...ClientMcpServers,
  }),
  result: SessionOpened,
} satisfies MethodDef;

/**
 * openSession's `cwd` (added in version 1): the directory the session works in while it is open,
 * instead of the one its header names (the header is not rewritten). Relative paths resolve
 * against the daemon's working directory; it must be an existing directory.
 */
const OpenCwd = { cwd: z.string().min(1).optional(), ...ClientMcpServers };

const openSession = {
  scope: "global",
  params: z.union([z.strictObject({ sessionFile: z.string().min(1), ...OpenCwd }), z.strictObject({ sessionId: SessionId, ...OpenCwd })], {
    error: "expected exactly one of sessionFile, sessionId",
  }),
  result: SessionOpened,
} satisfies MethodDef;

const listSessions = {
  scope: "read",
  params: z.strictObject({
    /** only sessions of this working directory (default: every session) */
    cwd: z.string().min(1).optional(),
  }),
  /** newest `modified` first */
  result: z.object({ sessions: z.array(SessionSummary) }),
} satisfies MethodDef;

const closeSession = {
  scope: "global",
  endsRoute: true,
  params: z.strictObject(SessionRef),
  result: z.object({ closed: z.boolean() }),
} satisfies MethodDef;

const forkSession = {
  scope: "global",
  params: z.strictObject({ ...SessionRef, entryId: Id }),
  result: SessionOpened,
} satisfies MethodDef;

const subscribe = {
  scope: "read",
  params: z.strictObject({
    ...SessionRef,
    /** replay the buffered events with seq > afterSeq before live ones */
    afterSeq: NonNegInt.optional(),
    /** the streamId afterSeq was counted in; another one (the session was reopened) answers gap: true */
    streamId: z.string().min(1).optional(),
  }),
  result: z.object({
    subscribed: z.literal(true),
    /** events replayed (sent before this response) */
    replayed: NonNegInt,
    /** true: some events after afterSeq are no longer buffered; nothing was replayed, refetch state */
    gap: z.boolean().optional(),
    /** seq of the session's latest event when the subscription took effect (0: none yet) */
    lastSeq: NonNegInt,
    /** the stream lastSeq counts in (as in getState) */
    streamId: z.string(),
  }),
} satisfies MethodDef;

const unsubscribe = {
  scope: "read",
  params: z.strictObject(SessionRef),
  result: z.object({ unsubscribed: z.boolean() }),
} satisfies MethodDef;

const getState = {
  scope: "read",
  params: z.strictObject(SessionRef),
  result: SessionState,
} satisfies MethodDef;

const getMessages = {
  scope: "read",
  params: z.strictObject(SessionRef),
  /** the context: what the model sees next, from the root (or latest compaction summary) to the leaf */
  result: z.object({ messages: z.array(AgentMessage) }),
} satisfies MethodDef;

const getTree = {
  scope: "read",
  params: z.strictObject(SessionRef),
  /** every entry, depth first, children by timestamp */
  result: z.object({ leafId: Id.nullable(), entries: z.array(TreeNode) }),
} satisfies MethodDef;

/** A compaction on the active branch, as stored (getHistory). */
const StoredCompaction = z.object({
  entryId: Id,
  /** ms since the epoch: the timestamp of the compactionSummary message it becomes */
  timestamp: z.number(),
  tokensBefore: z.number(),
  /** the file lists, carried user messages, `fallback`; from this version on also `reason` and `tokensAfter` */
  details: z.record(z.string(), z.unknown()).optional(),
  fromHook: z.boolean().optional(),
});

const getHistory = {
  scope: "read",
  params: z.strictObject({
    ...SessionRef,
    /** false: only `compactions` (messages comes back empty) */
    messages: z.boolean().default(true),
  }),
  result: z.object({
    /**
     * the active branch's messages before the context starts (before the latest compaction's first
     * kept entry), oldest first, as stored; earlier compactions as compactionSummary messages.
     * Empty when the branch has no compaction.
     */
    messages: z.array(AgentMessage),
    /** every compaction on the active branch, oldest first */
    compactions: z.array(StoredCompaction),
  }),
} satisfies MethodDef;

const prompt = {
  scope: "exclusive",
  holds: "run",
  joinsRun: { param: "delivery", hint: 'send the prompt with delivery "steer" or "followUp"' },
  params: z.strictObject({
    ...SessionRef,
    text: z.string().min(1),
    images: z.array(ImageInput).optional(),
    /** while a run is in progress: steer (after the running tool) or followUp (when the run would stop) */
    delivery: z.enum(["steer", "followUp"]).optional(),
  }),
  /** the run that started, or the run the queued prompt was handed to */
  result: z.object({ runId: Id }),
} satisfies MethodDef;

const abort = {
  scope: "session",
  params: z.strictObject({
    ...SessionRef,
    /**
     * what becomes of the prompts queued on the aborted run (added in version 1): "drop" (the
     * default: prompts_dropped lists them) or "send" (the next run starts with them at once:
     * "stop and send now")
     */
    queued: z.enum(["drop", "send"]).optional(),
  }),
  /** false: nothing was in progress */
  result: z.object({ aborted: z.boolean() }),
} satisfies MethodDef;

const compact = {
  scope: "exclusive",
  holds: "compaction",
  params: z.strictObject({
    ...SessionRef,
    /** what the summary should focus on */
    instructions: z.string().optional(),
  }),
  result: CompactionResult,
} satisfies MethodDef;

const setAutoCompactionEnabled = {
  scope: "session",
  params: z.strictObject({ ...SessionRef, enabled: z.boolean() }),
  result: z.object({ enabled: z.boolean() }),
} satisfies MethodDef;

const setCompactionThreshold = {
  scope: "session",
  params: z.strictObject({
    ...SessionRef,
    /** up to 1 a fraction of the window in effect, above 1 a token count (at most the window); null: the settings' again */
    threshold: CompactionThreshold.nullable(),
  }),
  /** thresholdTokens: the trigger now, in tokens (the lower of this and the reserveTokens rule) */
  result: z.object({ threshold: CompactionThreshold.nullable(), thresholdTokens: NonNegInt }),
} satisfies MethodDef;

const navigateTree = {
  scope: "exclusive",
  holds: "tree move",
  params: z.strictObject({
    ...SessionRef,
    targetId: Id,
    /** summarize the branch being left into a branch_summary entry */
    summarize: z.boolean().default(false),
    /** focus for that summary */
    instructions: z.string().optional(),
  }),
  result: z.object({
    /** the new leaf (a user message target moves the leaf to its parent; null: before the first entry) */
    leafId: Id.nullable(),
    branchSummaryEntryId: Id.optional(),
    /** a user message target's text, for the client to put back in its editor */
    editorText: z.string().optional(),
  }),
} satisfies MethodDef;

const setModel = {
  scope: "exclusive",
  holds: "change",
  params: z.strictObject({ ...SessionRef, model: z.string().min(1) }),
  result: z.object({ model: z.object({ id: z.string(), contextWindow: NonNegInt, provider: z.string().optional(), name: z.string().optional() }) }),
} satisfies MethodDef;

const setThinkingLevel = {
  scope: "exclusive",
  holds: "change",
  params: z.strictObject({ ...SessionRef, level: ThinkingLevel }),
  result: z.object({ level: ThinkingLevel }),
} satisfies MethodDef;

const listModels = {
  scope: "read",
  params: z.strictObject({}),
  result: z.object({ models: z.array(ModelSummary) }),
} satisfies MethodDef;

const getSettings = {
  scope: "read",
  params: z.strictObject({
    /** also check this working directory's project settings file for keys it may not set */
    cwd: z.string().min(1).optional(),
  }),
  result: z.object({
    settings: Settings,
    /** keys a project settings file set that were ignored (see PROTOCOL.md); absent when none */
    warnings: z.array(SettingsWarning).optional(),
  }),
} satisfies MethodDef;

const updateSettings = {
  scope: "global",
  params: z.strictObject({ patch: SettingsPatch }),
  /** the settings after the patch */
  result: z.object({ settings: Settings }),
} satisfies MethodDef;

const setSessionName = {
  scope: "session",
  params: z.strictObject({ ...SessionRef, name: z.string() }),
  /** the name as stored (trimmed) */
  result: z.object({ name: z.string() }),
} satisfies MethodDef;

const setLabel = {
  scope: "session",
  params: z.strictObject({
    ...SessionRef,
    entryId: Id,
    /** absent or "" clears the label */
    label: z.string().optional(),
  }),
  /** label absent: cleared */
  result: z.object({ entryId: Id, label: z.string().optional() }),
} satisfies MethodDef;

const deleteSession = {
  scope: "global",
  endsRoute: true,
  params: z.strictObject(SessionRef),
  /** the file that was removed */
  result: z.object({ deleted: z.string() }),
} satisfies MethodDef;

const getSessionStats = {
  scope: "read",
  params: z.strictObject(SessionRef),
  /** over every message entry in the file (all branches) */
  result: z.object({
    sessionId: Id,
    /** message entries per role */
    messages: z.record(z.string(), NonNegInt),
    totalMessages: NonNegInt,
    toolCalls: NonNegInt,
    tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), total: z.number() }),
    /** USD */
    cost: z.number(),
    /** what pith's compactions cost (every stored compaction entry's summarizer requests, summed); absent before the first */
    compaction: CompactionCost.extend({ count: NonNegInt }).optional(),
  }),
} satisfies MethodDef;

const bash = {
  scope: "exclusive",
  holds: "bash command",
  notOverNodeLink: "the user's bash is not run for another node: connect to this node with its client token",
  params: z.strictObject({ ...SessionRef, command: z.string().min(1) }),
  result: z.object({
    output: z.string(),
    /** null when the process had no exit code (killed, cancelled, failed to start) */
    exitCode: z.int().nullable(),
    cancelled: z.boolean(),
    truncated: z.boolean(),
    /** the bashExecution entry it was stored as */
    entryId: Id,
  }),
} satisfies MethodDef;

/** listMcpServers (added in version 1): the session's MCP servers, their state and their tools */
const listMcpServers = {
  scope: "read",
  params: z.strictObject(SessionRef),
  result: z.object({ servers: z.array(McpServerInfo) }),
} satisfies MethodDef;

const setPermissionMode = {
  scope: "session",
  params: z.strictObject({ ...SessionRef, mode: PermissionMode }),
  result: z.object({ mode: PermissionMode }),
} satisfies MethodDef;

/** Every method: name -> {scope, params, result}. */
export const methods = {
  initialize,
  createSession,
  openSession,
  listSessions,
  closeSession,
  forkSession,
  subscribe,
  unsubscribe,
  getState,
  getMessages,
  getTree,
  getHistory,
  prompt,
  abort,
  compact,
  setAutoCompactionEnabled,
  setCompactionThreshold,
  navigateTree,
  setModel,
  setThinkingLevel,
  listModels,
  getSettings,
  updateSettings,
  setSessionName,
  setLabel,
  deleteSession,
  getSessionStats,
  bash,
  setPermissionMode,
  listMcpServers,
} as const;

type Methods = typeof methods;
export type MethodName = keyof Methods;
/** What a client sends (defaults not yet applied). */
export type ParamsOf<M extends MethodName> = z.input<Methods[M]["params"]>;
/** What the server works with after validation (defaults applied). */
export type ParsedParamsOf<M extends MethodName> = z.output<Methods[M]["params"]>;
/** What the server answers. */
export type ResultOf<M extends MethodName> = z.output<Methods[M]["result"]>;

export type ScopeOf<M extends MethodName> = Methods[M]["scope"];
/** The methods of one scope, from the table. */
type MethodsOfScope<S extends MethodScope> = { [M in MethodName]: ScopeOf<M> extends S ? M : never }[MethodName];
/** The methods that hold a session's exclusive slot (every one names its session). */
export type ExclusiveMethod = MethodsOfScope<"exclusive">;

/** The session a request names, read from the method's params type (undefined: it names none). */
export function sessionIdOf(params: ParsedParamsOf<MethodName>): string | undefined {
  return "sessionId" in params ? params.sessionId : undefined;
}

export const METHOD_NAMES = Object.keys(methods) as MethodName[];

export type PreparedCompaction = z.output<typeof PreparedCompaction>;
export type SessionState = z.output<typeof SessionState>;
export type SessionOpened = z.output<typeof SessionOpened>;
export type HookName = z.output<typeof HookName>;

export { CompactionSettings, Settings, SettingsWarning } from "./settings.js";
