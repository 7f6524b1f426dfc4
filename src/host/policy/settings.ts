// Settings: the user's ($PITH_HOME/settings.json) with the project's (<cwd>/.pith/settings.json)
// over them, and command-line flags over both. Validated with zod: a bad file is an error that
// names the file and the key.
//
// A project file comes with a repository the user did not write, and the model can write one
// too, so it is trusted with nothing that widens what tools may touch or where requests and
// secrets go: those keys are honoured only from the user's file or a flag, and a project file
// that sets one is ignored for that key with a warning naming the file and the key.
//
// Both files are read by pith itself, on the event loop, so through the one checked read
// (regular-file.ts): a regular file of at most 1 MiB, opened without blocking. A project file
// that is anything else (a FIFO the model made, a link to /dev/zero a repository ships, 50 MB) is
// skipped with a warning, and so is one reached through a link: neither `.pith` nor
// `.pith/settings.json` may be a link (a project's settings are the project's own file, never
// one a link makes it read from elsewhere). The user's own file may be a link (dotfiles often
// are), but one that is not a regular file or is too large is an error, as invalid JSON is:
// running without the user's settings would drop what they chose (a permission mode, a sandbox).
import { closeSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { Settings as SettingsShape, type SettingsWarning } from "../../../protocol/methods.js";
import { pithHome } from "../../session/paths.js";
import { openDirectoryNoFollowSync, readRegularFileSync, type RegularRead } from "../../os/regular-file.js";
import { canVerifyDescriptors } from "../../tools/confined-fs.js";

/** The settings file's shape is the protocol's (getSettings returns it); unknown keys are errors. */
export const settingsSchema = SettingsShape.strict();

export type Settings = z.infer<typeof settingsSchema>;
export type { SettingsWarning };

/**
 * Keys only the user (their settings file, a flag) may set: each widens what the model's tools
 * may reach (outside the cwd, without asking, outside the sandbox, the daemon's environment),
 * where the user's API keys are sent (a provider entry names a URL and a key variable), or how
 * much of a hostile endpoint's reply the daemon holds (maxReplyMB), which programs run as the user
 * outside the sandbox and where the tools' calls go (mcpServers), or how long a run waits for the
 * user's clients to come back to a question (permissionGraceSeconds).
 */
const TRUSTED_ONLY_KEYS = ["allowOutsideCwd", "permissionMode", "sandbox", "allowEnv", "providers", "mcpServers", "maxReplyMB", "permissionGraceSeconds"] as const satisfies readonly (keyof Settings)[];

export class SettingsError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = "SettingsError";
  }
}

/** The most bytes a settings file may hold (a real one is a few KiB). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The key a warning names when a whole project file was skipped (none of its keys were read). */
const WHOLE_FILE_KEY = "*";

/** Reads and validates the user's settings file; a missing file is empty settings. */
export function readSettingsFile(file: string): Settings {
  const read = readRegularFileSync(file, { maxBytes: MAX_SETTINGS_BYTES });
  if (read.kind === "missing") return {};
  if (read.kind === "skipped") throw new SettingsError(file, `${file} ${read.why}: settings are read only from a regular file of at most 1 MiB`);
  return parseSettings(file, read.bytes);
}

function parseSettings(file: string, bytes: Buffer): Settings {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw new SettingsError(file, `${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(top level)"}: ${i.message}`).join("; ");
    throw new SettingsError(file, `invalid settings in ${file}: ${issues}`);
  }
  return parsed.data;
}

function mergeObjects<T extends Record<string, unknown>>(base: T, over: T): T {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" && !Array.isArray(b) ? mergeObjects(b as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out as T;
}

export function userSettingsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(pithHome(env), "settings.json");
}

function projectSettingsFile(cwd: string): string {
  return join(cwd, ".pith", "settings.json");
}

/**
 * `<cwd>/.pith/settings.json`'s bytes, with no link followed inside the project: `.pith` is
 * opened with O_NOFOLLOW and the file is read from that open directory (/proc/self/fd/N), so a
 * `.pith` swapped for a link after the open changes nothing. `shown` names what was skipped.
 */
function readProjectSettingsBytes(cwd: string): RegularRead & { shown?: string } {
  const dirPath = join(cwd, ".pith");
  const dir = openDirectoryNoFollowSync(dirPath);
  if (dir.kind === "missing") return dir;
  if (dir.kind === "skipped") return { ...dir, shown: dirPath };
  try {
    const at = canVerifyDescriptors() ? `/proc/self/fd/${dir.fd}/settings.json` : join(dirPath, "settings.json");
    return { ...readRegularFileSync(at, { maxBytes: MAX_SETTINGS_BYTES, noFollow: true }), shown: projectSettingsFile(cwd) };
  } finally {
    closeSync(dir.fd);
  }
}

/** The project's settings file, validated; one that cannot be read safely is skipped with a warning. */
function readProjectSettings(cwd: string): { settings: Settings; warnings: SettingsWarning[] } {
  const file = projectSettingsFile(cwd);
  const read = readProjectSettingsBytes(cwd);
  if (read.kind === "missing") return { settings: {}, warnings: [] };
  if (read.kind === "skipped") {
    const message = `${read.shown ?? file} ${read.why}: project settings are read only from a regular file of at most 1 MiB, not through a link; ${file} ignored`;
    return { settings: {}, warnings: [{ file, key: WHOLE_FILE_KEY, message }] };
  }
  return untrustedSettings(file, parseSettings(file, read.bytes));
}

/**
 * A project file's settings with the keys it may not set taken out (each one a warning).
 * `secretEnv` only ever adds names, so a project may extend the user's list but not shorten it.
 */
function untrustedSettings(file: string, settings: Settings): { settings: Settings; warnings: SettingsWarning[] } {
  const kept: Record<string, unknown> = { ...settings };
  const warnings: SettingsWarning[] = [];
  for (const key of TRUSTED_ONLY_KEYS) {
    if (!(key in kept)) continue;
    delete kept[key];
    warnings.push({ file, key, message: `${file} sets "${key}", which only your own settings file or a command-line flag may set; ignored` });
  }
  return { settings: kept as Settings, warnings };
}

export interface ResolvedSettings {
  settings: Settings;
  /** keys the project file set that were ignored (WHOLE_FILE_KEY: the whole file, skipped) */
  warnings: SettingsWarning[];
}

/** The settings in effect for `cwd`: the project's over the user's, then `flags` over both. */
export function resolveSettings(cwd: string, env: NodeJS.ProcessEnv = process.env, flags: Settings = {}): ResolvedSettings {
  const user = readSettingsFile(userSettingsFile(env));
  const project = readProjectSettings(cwd);
  const merged = mergeObjects(mergeObjects(user, project.settings), flags);
  const secretEnv = [...new Set([...(user.secretEnv ?? []), ...(project.settings.secretEnv ?? []), ...(flags.secretEnv ?? [])])];
  if (secretEnv.length > 0) merged.secretEnv = secretEnv;
  return { settings: merged, warnings: project.warnings };
}

/** The settings in effect for `cwd` (see resolveSettings). */
export function loadSettings(cwd: string, env: NodeJS.ProcessEnv = process.env, flags: Settings = {}): Settings {
  return resolveSettings(cwd, env, flags).settings;
}
