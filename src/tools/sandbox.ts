// The sandbox for the model's bash commands, with bubblewrap (Linux). Even with pith's secrets
// removed from its environment, a command could read pith's token file, other sessions'
// transcripts, or write anywhere the user can; in the sandbox:
//   workspace-write  the cwd (and settings' writableRoots) and a private /tmp are writable,
//                    everything else read-only, pith's home hidden behind an empty tmpfs;
//   readonly         the same, but the cwd is read-only too (only the private /tmp is writable).
// The command also gets its own pid namespace and /proc, so it cannot see the daemon's process
// (whose /proc/<pid>/environ holds the API key), and `--die-with-parent` plus the namespace mean
// every process of the command dies when the daemon does. Network stays on unless turned off.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { sep } from "node:path";

export type SandboxMode = "workspace-write" | "readonly";

export interface SandboxPolicy {
  mode: SandboxMode;
  /** network access (default true) */
  network: boolean;
  /** more writable directories (absolute) */
  writableRoots: readonly string[];
}

/** What a sandboxed command sees of the file system besides the read-only root. */
export interface SandboxMounts {
  cwd: string;
  /** hidden behind an empty tmpfs (pith's home) */
  hidden: readonly string[];
  /** read-only even inside a writable root (the project's .pith) */
  readOnly: readonly string[];
}

export const BWRAP = "bwrap";

let probed: { ok: true } | { ok: false; reason: string } | undefined;

/**
 * Whether bubblewrap can build this sandbox here (found once per process): the package may be
 * missing, or the kernel may refuse unprivileged user namespaces.
 */
export function sandboxAvailable(): { ok: true } | { ok: false; reason: string } {
  if (probed) return probed;
  const r = spawnSync(BWRAP, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--", "/bin/sh", "-c", "exit 0"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
    encoding: "utf8",
  });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    probed = { ok: false, reason: missing ? "bubblewrap (bwrap) is not installed: install the Debian package bubblewrap" : `bubblewrap failed to start: ${r.error.message}` };
  } else if (r.status !== 0) {
    probed = { ok: false, reason: `bubblewrap cannot create a sandbox here (exit ${r.status}): ${(r.stderr ?? "").trim().slice(0, 300)}` };
  } else probed = { ok: true };
  return probed;
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}

/**
 * bwrap's arguments for running `command` in the sandbox. Mounts are applied in order, and the
 * deepest mount over a path decides what is seen there, so they are sorted parent before child:
 * a cwd inside /tmp or inside pith's home is mounted after the tmpfs that would cover it, and
 * pith's home inside the cwd is hidden after the cwd is mounted. Mounts of one same path apply in
 * the order listed (a stable sort): hidden beats read-only and writable roots, the cwd beats hidden.
 */
export function bwrapArgs(policy: SandboxPolicy, mounts: SandboxMounts, command: readonly string[]): string[] {
  const writable = policy.mode === "workspace-write";
  const ops: { path: string; args: string[] }[] = [{ path: "/tmp", args: ["--tmpfs", "/tmp"] }];
  if (writable) for (const root of policy.writableRoots) ops.push({ path: root, args: ["--bind-try", root, root] });
  for (const p of mounts.readOnly) ops.push({ path: p, args: ["--ro-bind-try", p, p] });
  // nothing to hide where nothing exists (and bwrap cannot make a mount point on a read-only root)
  for (const p of mounts.hidden) if (existsSync(p)) ops.push({ path: p, args: ["--tmpfs", p] });
  ops.push({ path: mounts.cwd, args: [writable ? "--bind" : "--ro-bind", mounts.cwd, mounts.cwd] });
  ops.sort((a, b) => depth(a.path) - depth(b.path));
  return [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--unshare-pid",
    "--die-with-parent",
    ...(policy.network ? [] : ["--unshare-net"]),
    ...ops.flatMap((o) => o.args),
    "--chdir", mounts.cwd,
    "--",
    ...command,
  ];
}
