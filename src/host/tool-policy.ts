// What a session's tools may touch, decided once when the session goes live: confinement to the
// cwd (unless the user allows more), pith's own folders off limits, the project's .pith read-only,
// pith's secrets out of every tool process's environment, and the sandbox for the model's bash.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Settings } from "./settings.js";
import { sandboxAvailable, type SandboxPolicy } from "../tools/sandbox.js";
import { toolEnvironment } from "../tools/tool-env.js";
import type { ToolContext } from "../tools/types.js";

export type SandboxSetting = "workspace-write" | "readonly" | "off";

/** The tool context fields a session fixes (cwd, signal and callbacks come per call). */
export type ToolPolicy = Required<Pick<ToolContext, "deniedPaths" | "readOnlyPaths" | "env">> & Pick<ToolContext, "allowOutsideCwd" | "sandbox">;

export interface ToolPolicyInput {
  cwd: string;
  settings: Settings;
  /** pith's home and the sessions folder (which may lie elsewhere) */
  pithPaths: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** realpath where the path exists; tools compare real paths. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function expandRoot(p: string, cwd: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/")) return join(homedir(), p.slice(2));
  return isAbsolute(p) ? p : resolve(cwd, p);
}

/**
 * The sandbox mode in effect: the settings' (or a flag's), else workspace-write where bubblewrap
 * works and off where it does not. A mode asked for explicitly stays even where bubblewrap does
 * not work: bash then refuses to run rather than run unconfined.
 */
export function sandboxMode(settings: Settings): SandboxSetting {
  return settings.sandbox?.mode ?? (sandboxAvailable().ok ? "workspace-write" : "off");
}

export function toolPolicy(input: ToolPolicyInput): ToolPolicy & { sandboxMode: SandboxSetting } {
  const { settings } = input;
  const cwd = real(input.cwd);
  const mode = sandboxMode(settings);
  const sandbox: SandboxPolicy | undefined =
    mode === "off" ? undefined : { mode, network: settings.sandbox?.network ?? true, writableRoots: (settings.sandbox?.writableRoots ?? []).map((p) => real(expandRoot(p, cwd))) };
  return {
    allowOutsideCwd: settings.allowOutsideCwd ?? false,
    deniedPaths: [...new Set(input.pithPaths.map(real))],
    // the folder, and where it leads if a repository made it a symlink
    readOnlyPaths: [...new Set([join(cwd, ".pith"), real(join(cwd, ".pith"))])],
    env: toolEnvironment(input.env, { allow: settings.allowEnv, secret: settings.secretEnv }),
    sandbox,
    sandboxMode: mode,
  };
}
