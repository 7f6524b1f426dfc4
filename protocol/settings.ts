// The settings shape (the user's settings.json, getSettings' result) and updateSettings' patch,
// which is derived from it: one definition, so a key added to the settings is patchable at once
// and the two cannot disagree on a key's type or bounds.
import { z } from "zod";
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
export const ProviderName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);

/** A settings key a file set but that was not honoured there (getSettings' warnings). */
export const SettingsWarning = z.object({
  file: z.string(),
  /** the key as written, e.g. "allowOutsideCwd" or "sandbox" */
  key: z.string(),
  message: z.string(),
});

/** Every compaction setting (src/compaction/settings.ts checks its type against this one). */
export const CompactionSettingsShape = z.object({
  enabled: z.boolean(),
  reserveTokens: z.int().positive(),
  keepRecentTokens: z.int().positive(),
  model: z.string().min(1),
  minSavingsFraction: z.number().min(0).max(1),
  userMessagesFraction: z.number().min(0).max(1),
  maxBlockChars: z.int().positive(),
  summaryTimeoutMs: z.int().positive(),
  /** write the summary in the background past this fraction of the threshold (0: off) */
  prepareAt: z.number().min(0).lt(1),
  /** how a summary is asked for (docs/compaction.md); unset: conversation where the provider caches */
  summaryFraming: z.enum(["conversation", "transcript"]),
  prune: z.object({ enabled: z.boolean(), keepToolTokens: NonNegInt, minPruneTokens: NonNegInt }).partial(),
});

/** Settings (the user's settings.json), as getSettings / updateSettings return them. */
export const Settings = z.object({
  model: z.string().min(1).optional(),
  thinkingLevel: ThinkingLevel.optional(),
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  compaction: CompactionSettingsShape.partial().optional(),
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
  /** model providers by name, beside the built-in `anthropic` and `openai`; only from the user's own file */
  providers: z.record(ProviderName, ProviderSettings).optional(),
  allowOutsideCwd: z.boolean().optional(),
  maxTurns: z.int().positive().optional(),
  /** the permission mode new sessions start in (default "auto") */
  permissionMode: PermissionMode.optional(),
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
          /** the private /tmp's size in MiB (default 512) */
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
export type CompactionSettingsShape = z.output<typeof CompactionSettingsShape>;
