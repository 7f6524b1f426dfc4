// Settings: the user's ($PITH_HOME/settings.json) with the project's (<cwd>/.pith/settings.json)
// over them. Validated with zod: a bad file is an error that names the file and the key.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { Settings as SettingsShape } from "../../protocol/methods.js";
import { pithHome } from "../session/paths.js";

/** The settings file's shape is the protocol's (getSettings returns it); unknown keys are errors. */
export const settingsSchema = SettingsShape.strict();

export type Settings = z.infer<typeof settingsSchema>;

export class SettingsError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = "SettingsError";
  }
}

/** Reads and validates one settings file; a missing file is empty settings. */
export function readSettingsFile(file: string): Settings {
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
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

export function projectSettingsFile(cwd: string): string {
  return join(cwd, ".pith", "settings.json");
}

/** The settings in effect for `cwd`: the project's over the user's. */
export function loadSettings(cwd: string, env: NodeJS.ProcessEnv = process.env): Settings {
  return mergeObjects(readSettingsFile(userSettingsFile(env)), readSettingsFile(projectSettingsFile(cwd)));
}
