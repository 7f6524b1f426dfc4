// The sandbox for the model's bash commands, with bubblewrap (Linux). Even with pith's secrets
// removed from its environment, a command could read pith's token file, other sessions'
// transcripts, or write anywhere the user can; in the sandbox:
//   workspace-write  the cwd (and settings' writableRoots) and a private /tmp are writable,
//                    everything else read-only, pith's home hidden behind an empty tmpfs;
//   readonly         the same, but the cwd is read-only too (only the private /tmp is writable).
// The command also gets its own pid namespace and /proc, so it cannot see the daemon's process
// (whose /proc/<pid>/environ holds the API key), and `--die-with-parent` plus the namespace mean
// every process of the command dies when the daemon does. More walls, each in its own file:
//   seccomp.ts        sockets of AF_INET, AF_INET6 and AF_NETLINK only: no AF_UNIX (the user's agents
//                     and services, by path), no AF_VSOCK (the host's, outside the network namespace);
//   sandbox-net.ts    network off, or its own namespace with no path to the host's loopback;
//   sandbox-cgroup.ts limits on processes and memory, cgroup v1 or v2 (sandbox-cgroup-v2.ts) where
//                     the daemon can make cgroups (the private /tmp's and /dev/shm's sizes are bwrap's --size);
//   sandbox-run.ts    puts them together for one command.
// /run (sockets of D-Bus, systemd, docker, the user's runtime dir) is hidden as well: the seccomp
// filter already stops connecting, and what is not seen cannot be probed.
// The rest of the box: its own IPC namespace (no System V shared memory, message queue or
// semaphore of the user's processes can be attached; the command's own go with it); /dev made by
// bwrap (null, zero, full, random, urandom, tty, its own pts) and then read-only, since it is a
// tmpfs as large as half the RAM that no limit counts; /dev/shm its own tmpfs. tmpMB bounds the
// memory-backed space a command can fill: /tmp and /dev/shm together (tmpfsSizes).
import { spawnSync } from "node:child_process";
import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, sep } from "node:path";
import type { SandboxMode } from "../../protocol/settings.js";
import { mountArgs, type SandboxMounts } from "./sandbox-mounts.js";
import type { PinnedDirs } from "./sandbox-pins.js";
import { tmpfsSizes } from "./sandbox-tmpfs.js";

/**
 * off       no network at all (not even 127.0.0.1): the default;
 * isolated  its own network namespace with outbound access through slirp4netns, and no path to
 *           the host's loopback (so not to `pith serve` or other local services);
 * host      the host's network (asked for, where slirp4netns is missing).
 */
export type SandboxNetwork = "off" | "isolated" | "host";

/** What one sandboxed command may use (settings' sandbox.limits; output is limited by bash itself). */
export interface SandboxLimits {
  /** processes and threads at once */
  processes: number;
  memoryMB: number;
  /** the memory-backed space a command can fill: the private /tmp and /dev/shm together */
  tmpMB: number;
}

export const DEFAULT_LIMITS = { processes: 512, memoryMB: 4096, outputMB: 100, tmpMB: 512 } as const;

export interface SandboxPolicy {
  /** the settings' mode; "off" has no policy (commands run unconfined) */
  mode: Exclude<SandboxMode, "off">;
  network: SandboxNetwork;
  /** more writable directories (absolute) */
  writableRoots: readonly string[];
  limits: SandboxLimits;
}

/** Descriptors of the bwrap process that carry the seccomp filter and the network handshake. */
export interface SandboxFds {
  /** bwrap reads the seccomp program from it */
  seccomp?: number;
  /** bwrap writes the command's pid there (JSON), for slirp4netns */
  info?: number;
  /** the command starts once something can be read there (after the network is up) */
  block?: number;
  /**
   * Run the command as uid 0 of bwrap's user namespace (still the user outside, with no
   * capabilities). Needed for slirp4netns as a normal user: otherwise bwrap, after mounting
   * /dev as uid 0 of a first user namespace, moves into a second one to give the command the
   * user's uid back, and the network namespace belongs to the first, which slirp4netns cannot
   * join from the outside.
   */
  rootInNamespace?: boolean;
  /**
   * The command gets a session of its own (setsid): in an editor's terminal it then has no
   * controlling tty to push input into (TIOCSTI), and the sandbox's first process leads its own
   * process group, which the daemon and its reaper signal by the pid bwrap reports.
   */
  newSession?: boolean;
}

export type { SandboxMounts } from "./sandbox-mounts.js";

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

/**
 * bwrap's arguments for running `command` in the sandbox. The mounts (sandbox-mounts.ts) are
 * decided from paths checked now, in the order they apply: parent before child, so a cwd inside
 * /tmp is bound after the private /tmp, and pith's hidden folders after everything else; with
 * `pins`, each bind is of a descriptor opened now, which the spawn must hand bwrap (pins.fds).
 * Throws when the cwd cannot be shown (not a directory, or inside a folder the sandbox hides).
 */
export function bwrapArgs(policy: SandboxPolicy, mounts: SandboxMounts, command: readonly string[], fds: SandboxFds = {}, pins?: PinnedDirs): string[] {
  const ops = mountArgs(policy, mounts, pins);
  const sizes = tmpfsSizes(policy.limits.tmpMB);
  return [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--perms", "1777", "--size", String(sizes.shm), "--tmpfs", "/dev/shm",
    // not recursive: the device nodes, /dev/pts and /dev/shm are mounts of their own and stay writable
    "--remount-ro", "/dev",
    "--proc", "/proc",
    "--unshare-pid",
    "--unshare-ipc",
    "--die-with-parent",
    ...(policy.network === "host" ? [] : ["--unshare-net"]),
    ...(fds.rootInNamespace ? ["--unshare-user", "--uid", "0", "--gid", "0"] : []),
    ...(fds.newSession ? ["--new-session"] : []),
    ...(fds.seccomp !== undefined ? ["--seccomp", String(fds.seccomp)] : []),
    ...(fds.info !== undefined ? ["--info-fd", String(fds.info)] : []),
    ...(fds.block !== undefined ? ["--block-fd", String(fds.block)] : []),
    ...ops.flatMap((o) => o.args),
    "--chdir", mounts.chdir ?? mounts.cwd,
    "--",
    ...command,
  ];
}

/**
 * The host's runtime directories, hidden from sandboxed commands: /run (and /var/run where it is
 * not a link to it) and $XDG_RUNTIME_DIR, where the user's agents, D-Bus and docker keep their
 * sockets. Kept visible: /etc/resolv.conf where it points into /run (systemd-resolved), or DNS
 * would break with the network on.
 */
function runtimeMounts(env: NodeJS.ProcessEnv = process.env): { hidden: string[]; readOnly: string[] } {
  const hidden = ["/run"];
  try {
    if (!lstatSync("/var/run").isSymbolicLink()) hidden.push("/var/run");
  } catch {
    // no /var/run
  }
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && isAbsolute(xdg)) hidden.push(real(xdg));
  const readOnly: string[] = [];
  const resolv = real("/etc/resolv.conf");
  if (hidden.some((h) => resolv.startsWith(h + sep))) readOnly.push(resolv);
  return { hidden, readOnly };
}

/** What of a tool context (types.ts ToolContext, not imported: it imports this file) the sandbox's view comes from. */
interface SessionPaths {
  cwd: string;
  realCwd?: string;
  deniedPaths?: readonly string[];
  readOnlyPaths?: readonly string[];
}

/** The session's view of the file system, from its tool context: what bash's sandbox mounts. */
export function sessionMounts(ctx: SessionPaths): SandboxMounts {
  return { cwd: ctx.cwd, ...(ctx.realCwd !== undefined ? { realCwd: ctx.realCwd } : {}), hidden: ctx.deniedPaths ?? [], readOnly: ctx.readOnlyPaths ?? [] };
}

/** A session's view plus the host's runtime dirs, hidden, and what must stay visible in them. */
export function withRuntimeDirs(mounts: SandboxMounts): SandboxMounts {
  const runtime = runtimeMounts();
  return { ...mounts, hidden: [...mounts.hidden, ...runtime.hidden], exposed: [...(mounts.exposed ?? []), ...runtime.readOnly] };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
