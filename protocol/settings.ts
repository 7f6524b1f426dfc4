// The settings shape (the user's settings.json, getSettings' result) and updateSettings' patch,
// which is derived from it: one definition, so a key added to the settings is patchable at once
// and the two cannot disagree on a key's type or bounds.
import { z } from "zod";
import { McpServers } from "./mcp.js";
import { PermissionMode, ThinkingLevel } from "./messages.js";

const NonNegInt = z.int().nonnegative();

/** How the model's bash commands are confined: see docs/security.md. */
export const SandboxMode = z.enum(["workspace-write", "readonly", "off"]);

/** The kinds of model API pith speaks (see docs/providers.md). */
export const ProviderApi = z.enum(["anthropic", "openai-responses", "openai-completions", "ollama"]);

/** An environment variable's name (a provider's key is named, never written into settings). */
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

/** A provider: where its API is and which variable holds its key. Only the user's own file may set these. */
export const ProviderSettings = z.object({
  api: ProviderApi,
  /** the API's base URL (http or https); built-in providers default to the vendor's */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** the environment variable that holds the key; absent: the server needs none */
  apiKeyEnv: EnvName.optional(),
  /** more HTTP headers sent with every request */
  headers: z.record(z.string(), z.string()).optional(),
});

/** A provider's name: what comes before the first "/" of a model name. */
const ProviderName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);

/** A settings key a file set but that was not honoured there (getSettings' warnings). */
export const SettingsWarning = z.object({
  file: z.string(),
  /** the key as written, e.g. "allowOutsideCwd" or "sandbox"; "*" when the whole file was skipped (not a regular file, too large, a link) */
  key: z.string(),
  message: z.string(),
});

/**
 * When automatic compaction fires, beside reserveTokens (whichever comes first): a value up to 1 is
 * a fraction of the window in effect (a window learned from the endpoint included), a value above
 * 1 a count of tokens. Positive; a count is a whole number.
 */
export const CompactionThreshold = z
  .number()
  .positive("the threshold must be above 0: a fraction of the window (up to 1) or a token count")
  .refine((v) => v <= 1 || Number.isInteger(v), "a threshold above 1 is a token count: a whole number");

/** Pruning of old tool outputs, the cheap first stage before a full compaction. */
export const PruneSettings = z.object({
  /** replace old tool outputs with a placeholder in the model's view (stored as context_edit entries; the outputs stay in the file) */
  enabled: z.boolean(),
  /** the newest tool output kept whole, in tokens */
  keepToolTokens: NonNegInt,
  /** prune only when at least this many tokens would be freed (a batch larger than what is kept pays for the cache write it causes) */
  minPruneTokens: NonNegInt,
});

/**
 * Every compaction setting, filled in (the compaction code's settings, src/compaction/settings.ts);
 * the settings file's `compaction` is the same with every key optional, prune's too. The first
 * three are Pi's.
 */
export const CompactionSettings = z.object({
  /** automatic compaction on (manual compaction works either way) */
  enabled: z.boolean(),
  /** room left for the model's reply: compact when context > window - reserveTokens */
  reserveTokens: z.int().positive(),
  /** compact past this too (see CompactionThreshold); absent: reserveTokens alone decides */
  threshold: CompactionThreshold.optional(),
  /** recent context kept verbatim, in tokens */
  keepRecentTokens: z.int().positive(),
  /** model that writes summaries (default: the session's) */
  model: z.string().min(1).optional(),
  /** an automatic compaction that would free less than this fraction of the context is skipped */
  minSavingsFraction: z.number().min(0).max(1),
  /** user messages carried verbatim from the summarized span, as a fraction of keepRecentTokens */
  userMessagesFraction: z.number().min(0).max(1),
  /** tool results, thinking and extension messages are cut to this many characters for the summarizer */
  maxBlockChars: z.int().positive(),
  /** a summarizer request taking longer than this fails (and the fallback summary is used) */
  summaryTimeoutMs: z.int().positive(),
  /**
   * ahead-of-time compaction: once the context passes this fraction of the trigger threshold,
   * the summary is written in the background so the trigger finds it ready (0: off)
   */
  prepareAt: z.number().min(0).lt(1),
  /**
   * how a summary is asked for: "conversation" sends the agent's last request again (read from the
   * prompt cache) with the ask after it; "transcript" serializes the span into one new message.
   * Unset: conversation where the provider caches, transcript elsewhere or for another model.
   */
  summaryFraming: z.enum(["conversation", "transcript"]).optional(),
  prune: PruneSettings,
});

/** Settings (the user's settings.json), as getSettings / updateSettings return them. */
export const Settings = z.object({
  model: z.string().min(1).optional(),
  thinkingLevel: ThinkingLevel.optional(),
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  compaction: CompactionSettings.extend({ prune: PruneSettings.partial() }).partial().optional(),
  models: z
    .array(
      z.object({
        id: z.string().min(1),
        /** the provider that serves it (default: anthropic) */
        provider: ProviderName.optional(),
        name: z.string().optional(),
        contextWindow: z.int().positive().optional(),
        maxOutputTokens: z.int().positive().optional(),
        pricing: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() }).optional(),
        thinking: z.enum(["adaptive", "budget", "none"]).optional(),
      }),
    )
    .optional(),
  /** MCP servers by name, whose tools every session gets (docs/mcp.md); only from the user's own file */
  mcpServers: McpServers.optional(),
  /** model providers by name, beside the built-in `anthropic` and `openai`; only from the user's own file */
  providers: z.record(ProviderName, ProviderSettings).optional(),
  allowOutsideCwd: z.boolean().optional(),
  maxTurns: z.int().positive().optional(),
  /**
   * the cap on one model reply in MiB (default 32): its text, thinking and tool-call arguments
   * together; past it the stream is cut and the reply stored up to the cap, as an error (-32020).
   * Only from the user's own file or a flag: a repository could otherwise lift it
   */
  maxReplyMB: z.number().positive().max(1024).optional(),
  /** the permission mode new sessions start in (default "auto") */
  permissionMode: PermissionMode.optional(),
  /**
   * how long a question to clients (requestPermission, a beforeCompact hook) waits once no client
   * that can answer it follows the session, in seconds (default 60), before the safe default
   * holds (deny; let pith summarize). Only from the user's own file or a flag: it is how long the
   * user's own clients take to come back, and a repository could otherwise hold runs waiting
   */
  permissionGraceSeconds: z.number().nonnegative().max(86_400).optional(),
  sandbox: z
    .object({
      /** default: "workspace-write" where bubblewrap works, else "off" */
      mode: SandboxMode,
      /**
       * network access for sandboxed commands (default false). When true, commands get their own
       * network namespace with outbound access but no path to the host's loopback (slirp4netns or
       * pasta); without either tool, true shares the host's network and the daemon says so.
       */
      network: z.boolean(),
      /** more directories sandboxed commands may write (absolute, or ~/...) */
      writableRoots: z.array(z.string().min(1)),
      /** what one sandboxed command may use; past a limit the command is killed with a tool error */
      limits: z
        .object({
          /** processes (and threads) at once (default 512) */
          processes: z.int().positive(),
          /** memory in MiB (default 4096) */
          memoryMB: z.int().positive(),
          /** combined output in MiB (default 100): the command is killed past it */
          outputMB: z.int().positive(),
          /** the memory-backed space one command can fill, in MiB (default 512): the private /tmp and /dev/shm (a quarter, at most 64 MiB) together */
          tmpMB: z.int().positive(),
        })
        .partial(),
    })
    .partial()
    .optional(),
  /**
   * more environment variable names tool processes get, beside the fixed allow-list (PATH, HOME,
   * USER, SHELL, LANG, LC_*, TERM, TMPDIR, TZ, ...); only from the user's own settings or a flag
   */
  allowEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  /** environment variable names never given to tool processes, even when allowed */
  secretEnv: z.array(z.string().min(1)).optional(),
});

/** The same shape with unknown keys refused at every depth (a patch's array replaces whole). */
function strictDeep(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return strictDeep(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodArray) return z.array(strictDeep(schema.element as z.ZodType));
  if (schema instanceof z.ZodObject) return z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, strictDeep(v as z.ZodType)])));
  return schema;
}

/** A merge patch over an object shape: every key optional, null removes it, objects merge key by key. */
function mergePatchOf(shape: z.ZodObject): z.ZodType {
  const keys = Object.entries(shape.shape).map(([key, value]) => {
    let inner = value as z.ZodType;
    if (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
    const patched = inner instanceof z.ZodObject ? mergePatchOf(inner) : strictDeep(inner);
    return [key, patched.nullable().optional()];
  });
  return z.strictObject(Object.fromEntries(keys));
}

/**
 * updateSettings' patch: a JSON merge patch (RFC 7386) over the user's settings. Objects merge
 * key by key, null removes a key, anything else (arrays included) replaces. Strict at every
 * level so a misspelt key is -32602.
 */
export const SettingsPatch = mergePatchOf(Settings) as z.ZodType<SettingsPatchShape, SettingsPatchShape>;

/** A patch of T: each key optional and nullable, objects patched in turn, arrays and the rest whole. */
type MergePatch<T> = { [K in keyof T]?: (NonNullable<T[K]> extends readonly unknown[] ? T[K] : NonNullable<T[K]> extends object ? MergePatch<NonNullable<T[K]>> : T[K]) | null };
type SettingsPatchShape = MergePatch<z.output<typeof Settings>>;

export type Settings = z.output<typeof Settings>;
export type SettingsWarning = z.output<typeof SettingsWarning>;
export type SandboxMode = z.output<typeof SandboxMode>;
export type SettingsPatch = SettingsPatchShape;
export type CompactionSettings = z.output<typeof CompactionSettings>;
export type PruneSettings = z.output<typeof PruneSettings>;
