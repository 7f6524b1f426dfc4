// The permission mode the settings in effect for a directory start sessions in, read before a
// one-prompt run starts: "ask" there needs a terminal as much as the flag does. A settings file
// that cannot be read says nothing here: the run reports it as it opens the session.
import { loadSettings } from "../host/policy/settings.js";

export function settingsPermissionMode(cwd: string): string | undefined {
  try {
    return loadSettings(cwd).permissionMode;
  } catch {
    return undefined;
  }
}
