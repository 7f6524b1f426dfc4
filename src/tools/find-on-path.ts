// Finding a program the tools run (bash, ripgrep) on the daemon's PATH.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable `name` on PATH, or null. */
export function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}
