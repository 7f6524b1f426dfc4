// What the daemon says once at start about the sandbox: the model's bash runs unconfined unless
// bubblewrap works (or the user chose so), and shares the host's network without slirp4netns.
import type { Logger } from "pino";
import { sandboxAvailable } from "../../tools/sandbox.js";
import { resolveSettings, type Settings } from "./settings.js";
import { sandboxNetwork } from "./tool-policy.js";

export function warnIfUnsandboxed(env: NodeJS.ProcessEnv, flags: Settings | undefined, logger: Logger): void {
  let user: Settings;
  try {
    user = resolveSettings(process.cwd(), env, flags).settings;
  } catch {
    return; // a bad settings file is reported when a session needs it
  }
  const probe = sandboxAvailable();
  if (user.sandbox?.mode === undefined && !probe.ok) {
    logger.warn(`the model's bash commands run without a sandbox: ${probe.reason} (or set sandbox.mode to "off" in settings.json to silence this)`);
  } else if (user.sandbox?.mode !== undefined && user.sandbox.mode !== "off" && !probe.ok) {
    logger.error(`sandbox.mode is "${user.sandbox.mode}" but ${probe.reason}: the model's bash commands will be refused`);
  }
  if (probe.ok && user.sandbox?.mode !== "off" && sandboxNetwork(user) === "host") {
    logger.warn("sandbox.network is on but slirp4netns is not installed: sandboxed commands share the host's network, 127.0.0.1 included (install the Debian package slirp4netns to isolate it)");
  }
}
