// What a session's tools may touch, decided once when the session goes live: confinement to the
// cwd (unless the user allows more), pith's own folders off limits, the project's .pith read-only,
// pith's secrets out of every tool process's environment, and the sandbox for the model's bash.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, normalize, resolve } from "node:path";
import type { SandboxMode } from "../../../protocol/settings.js";
import type { Settings } from "./settings.js";
import { DEFAULT_LIMITS, sandboxAvailable, type SandboxNetwork, type SandboxPolicy } from "../../tools/sandbox.js";
import { pathKind } from "../../tools/sandbox-mounts.js";
import { isolatedNetworkAvailable } from "../../tools/sandbox-net.js";
import { isInside } from "../../tools/paths.js";
import { seccompFilter } from "../../tools/seccomp.js";
import { toolEnvironment } from "../../tools/tool-env.js";
import type { EditorPorts } from "../../tools/editor-ports.js";
import type { ToolContext } from "../../tools/types.js";

// the session's own temp dir is part of its tool context; LiveSession removes it when it closes
export { removeSessionTempDir } from "./session-temp.js";

/** How the model's bash commands are confined, as the settings say (see docs/security.md). */
export type SandboxSetting = SandboxMode;

/** The tool context fields a session fixes (cwd, signal and callbacks come per call). */
export type ToolPolicy = Required<Pick<ToolContext, "deniedPaths" | "readOnlyPaths" | "env" | "maxOutputBytes">> & Pick<ToolContext, "realCwd" | "allowOutsideCwd" | "sandbox" | "tempDir" | "editor">;

/**
 * A session's tools see the editor of whichever client serves the session at the time of each
 * call: a client may attach or go away while the session lives, and the agent keeps its tool
 * context from when it was built.
 */
export function sessionEditor(current: () => EditorPorts | undefined): EditorPorts {
  return {
    get terminal() {
      return current()?.terminal;
    },
  };
}

export interface ToolPolicyInput {
  cwd: string;
  settings: Settings;
  /** pith's home and the sessions folder (which may lie elsewhere) */
  pithPaths: readonly string[];
  env: NodeJS.ProcessEnv;
  /** the session's own directory for spilled outputs (see session-temp.ts) */
  tempDir?: string;
  /** told why a setting was not applied (a writable root skipped), for the daemon's log */
  warn?: (message: string) => void;
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
 * The settings' writable roots the sandbox may bind: each an existing directory with no link on
 * its path (a link, wherever it leads now, is a path a command may have planted: `out ->
 * ../../.pith` made before the session started), never pith's own folders. Any other is skipped
 * with a warning; the sandbox checks each again before every command (sandbox-mounts.ts).
 */
function writableRoots(settings: Settings, cwd: string, denied: readonly string[], warn: (message: string) => void): string[] {
  const roots: string[] = [];
  for (const given of settings.sandbox?.writableRoots ?? []) {
    const root = expandRoot(given, cwd);
    const kind = pathKind(root);
    const skip = (why: string) => warn(`sandbox.writableRoots: ${JSON.stringify(given)} ${why}; it stays read-only in the sandbox`);
    if (kind === "missing") skip(`does not exist (${root}); make the directory, then start a new session`);
    else if (kind === "link") skip(`has a symbolic link on its path; name the real directory (${real(root)}) instead`);
    else if (kind !== "directory") skip(`is not a directory (${root})`);
    else if (denied.some((d) => isInside(d, root))) skip(`lies inside pith's own folder`);
    else roots.push(normalize(root));
  }
  return roots;
}

/**
 * The project's protected folders, read-only for the tools and in the sandbox: its .pith, and
 * where it leads if it is a link to a directory strictly inside the cwd. A link to the cwd itself
 * or out of it protects nothing more (it made every write refused): the sandbox never binds
 * through it, and what lies outside the cwd is confined already.
 */
function protectedPaths(cwd: string): string[] {
  const dot = join(cwd, ".pith");
  const target = real(dot);
  return target !== dot && target !== cwd && isInside(cwd, target) ? [dot, target] : [dot];
}

/**
 * The sandbox mode in effect: the settings' (or a flag's), else workspace-write where bubblewrap
 * works and off where it does not. A mode asked for explicitly stays even where bubblewrap does
 * not work: bash then refuses to run rather than run unconfined.
 */
function sandboxMode(settings: Settings): SandboxSetting {
  return settings.sandbox?.mode ?? (sandboxAvailable().ok ? "workspace-write" : "off");
}

/**
 * The sandbox's network: off unless asked for; asked for, its own namespace through slirp4netns,
 * or the host's network where slirp4netns is missing (the daemon warns at start).
 */
export function sandboxNetwork(settings: Settings): SandboxNetwork {
  if (!(settings.sandbox?.network ?? false)) return "off";
  return isolatedNetworkAvailable() ? "isolated" : "host";
}

/** One line for the daemon's start banner, e.g. "sandbox: workspace-write, network off". */
export function sandboxSummary(settings: Settings): string {
  const mode = sandboxMode(settings);
  if (mode === "off") return "sandbox: off (the model's bash commands run as you, unconfined)";
  if (!sandboxAvailable().ok) return `sandbox: ${mode} (bubblewrap cannot run: bash is refused)`;
  const network = { off: "network off", isolated: "network on (isolated)", host: "network on (host network)" }[sandboxNetwork(settings)];
  const sockets = seccompFilter() ? "" : ", sockets not filtered (no seccomp filter for this architecture)";
  return `sandbox: ${mode}, ${network}${sockets}`;
}

export function toolPolicy(input: ToolPolicyInput): ToolPolicy & { sandboxMode: SandboxSetting } {
  const { settings } = input;
  const cwd = real(input.cwd);
  const deniedPaths = [...new Set(input.pithPaths.map(real))];
  const mode = sandboxMode(settings);
  const limits = { ...DEFAULT_LIMITS, ...settings.sandbox?.limits };
  const sandbox: SandboxPolicy | undefined =
    mode === "off"
      ? undefined
      : {
          mode,
          network: sandboxNetwork(settings),
          writableRoots: writableRoots(settings, cwd, deniedPaths, input.warn ?? (() => {})),
          limits: { processes: limits.processes, memoryMB: limits.memoryMB, tmpMB: limits.tmpMB },
        };
  return {
    // where the cwd exists: one made later has no real path to hold to yet
    ...(pathKind(cwd) === "directory" ? { realCwd: cwd } : {}),
    allowOutsideCwd: settings.allowOutsideCwd ?? false,
    deniedPaths,
    readOnlyPaths: protectedPaths(cwd),
    env: toolEnvironment(input.env, { allow: settings.allowEnv, secret: settings.secretEnv }),
    sandbox,
    sandboxMode: mode,
    // the daemon reads all of a command's output, sandboxed or not: the limit holds for both
    maxOutputBytes: limits.outputMB * 1024 * 1024,
    ...(input.tempDir ? { tempDir: input.tempDir } : {}),
  };
}
