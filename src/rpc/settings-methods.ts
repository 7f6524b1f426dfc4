// getSettings / updateSettings: the user's settings file ($PITH_HOME/settings.json). A patch is a
// JSON merge patch (objects merge, null removes, anything else replaces); the result is checked
// against the settings schema before it is written (atomically), so a bad patch changes nothing.
// getSettings also reports the keys project settings files set but may not (see settings.ts).
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { readSettingsFile, settingsSchema, SettingsError, userSettingsFile, type Settings } from "../host/policy/settings.js";
import { callerPath } from "../host/policy/caller-paths.js";
import { ErrorCode, HostError } from "../host/host-error.js";
import type { SessionHost } from "../host/session-host.js";
import { PRIVATE_DIR, writeFileAtomic } from "../session/atomic-write.js";

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === "object" && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export function settingsHandlers(host: SessionHost, env: NodeJS.ProcessEnv = process.env) {
  const file = () => userSettingsFile(env);
  const read = (): Settings => {
    try {
      return readSettingsFile(file());
    } catch (err) {
      if (err instanceof SettingsError) throw new HostError(ErrorCode.InvalidParams, err.message, { file: err.file });
      throw err;
    }
  };
  return {
    get: (cwd?: string) => {
      const settings = read();
      // a cwd is checked now (its project file may have changed); otherwise, what sessions met
      const warnings = cwd === undefined ? host.settingsWarnings() : host.settingsFor(callerPath(cwd)).warnings;
      return { settings, ...(warnings.length > 0 ? { warnings } : {}) };
    },
    update: (patch: unknown) => {
      const merged = mergePatch(read(), patch);
      const checked = settingsSchema.safeParse(merged);
      if (!checked.success) {
        throw new HostError(ErrorCode.InvalidParams, `the patched settings are invalid: ${checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      }
      mkdirSync(dirname(file()), { recursive: true, mode: PRIVATE_DIR });
      writeFileAtomic(file(), JSON.stringify(checked.data, null, 2) + "\n");
      return { settings: checked.data };
    },
  };
}
