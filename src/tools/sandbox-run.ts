// One command in the sandbox: bwrap's arguments and the descriptors it reads (the seccomp
// filter; for an isolated network, the pid report and the start gate), the command's cgroup,
// slirp4netns, and a watch for the limits. bash.ts spawns the process and asks this for:
//   extraStdio   how many descriptors past stdin/stdout/stderr the spawn must open (3, 4, 5);
//   passFds      the checked directories' descriptors the spawn hands on after them (bwrap binds those);
//   beforeStart  run with the gate's pid before the command starts (joins the cgroup);
//   start        run once spawned: feeds the filter, sets up the network, watches the limits;
//   finish       once the command is gone: the limit it went past (if any); cleans up.
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { BWRAP, bwrapArgs, withRuntimeDirs, type SandboxFds, type SandboxMounts, type SandboxPolicy } from "./sandbox.js";
import { releasePlaceholders } from "./sandbox-mounts.js";
import { PinnedDirs } from "./sandbox-pins.js";
import { commandCgroup, rlimitPrefix, watchCgroup, type CommandCgroup, type LimitHit } from "./sandbox-cgroup.js";
import { attachNetwork, type SandboxNet } from "./sandbox-net.js";
import { seccompFilter } from "./seccomp.js";

/**
 * The command's shell closes every descriptor above 2 before the command: the daemon already
 * closed what its parent leaked (cli/inherited-fds.ts), and bwrap closes its handshake
 * descriptors, so this is for a spawner that is not pith (an editor's terminal) and for a leak
 * nobody knows of yet. A shell without descriptor numbers past 9 (dash, where bash is missing)
 * closes 3-9 only.
 */
export const CLOSE_DESCRIPTORS = `for f in /proc/self/fd/*; do n=\${f##*/}; case $n in [0-2]) ;; [3-9]) eval "exec $n>&-" ;; *) [ -z "\${BASH_VERSION-}" ] || eval "exec $n>&-" ;; esac; done; unset f n; `;

export class SandboxRun {
  readonly file = BWRAP;
  readonly args: string[];
  readonly extraStdio: number;
  private readonly filter = seccompFilter();
  private readonly fds: SandboxFds;
  private readonly pins: PinnedDirs;
  private readonly cgroup: CommandCgroup | undefined;
  private net?: SandboxNet;
  private watch?: NodeJS.Timeout;
  private hit?: LimitHit;
  /** why the network could not be set up (the command then ran without one) */
  networkProblem?: string;

  /** `script` is the shell script to run (`shell -c script` inside the sandbox). */
  constructor(
    readonly policy: SandboxPolicy,
    mounts: SandboxMounts,
    shell: string,
    script: string,
  ) {
    this.cgroup = commandCgroup(policy.limits);
    const isolated = policy.network === "isolated";
    const root = process.getuid?.() === 0;
    this.fds = { ...(this.filter ? { seccomp: 3 } : {}), ...(isolated ? { info: 4, block: 5, rootInNamespace: !root } : {}) };
    this.extraStdio = isolated ? 3 : this.filter ? 1 : 0;
    this.pins = new PinnedDirs(3 + this.extraStdio);
    const limited = CLOSE_DESCRIPTORS + (this.cgroup ? "" : rlimitPrefix(policy.limits)) + script;
    try {
      this.args = bwrapArgs(policy, withRuntimeDirs(mounts), [shell, "-c", limited], this.fds, this.pins);
    } catch (err) {
      // the mounts cannot be built (the cwd is gone): no cgroup or descriptor is left behind
      this.pins.close();
      void this.cgroup?.remove().catch(() => {});
      throw err;
    }
  }

  /** The descriptors of the directories bwrap binds, for the spawn after the extra pipes. */
  get passFds(): readonly number[] {
    return this.pins.fds;
  }

  beforeStart(pid: number): void {
    this.cgroup?.join(pid);
  }

  /** `onLimit` is called once if the command goes past a limit (the caller kills it). */
  start(child: ChildProcess, onLimit: (hit: LimitHit) => void): void {
    this.pins.close(); // the child has its own copies
    const fd = (n: number | undefined) => (n === undefined ? undefined : ((child.stdio[n] ?? undefined) as (Readable & Writable) | undefined));
    const seccomp = fd(this.fds.seccomp);
    seccomp?.on("error", () => {});
    seccomp?.end(this.filter);
    if (this.fds.info !== undefined) this.startNetwork(fd(this.fds.info), fd(this.fds.block));
    if (this.cgroup) {
      this.watch = watchCgroup(this.cgroup, (hit) => {
        if (this.hit) return;
        this.hit = hit;
        onLimit(hit);
      });
    }
  }

  private startNetwork(info: Readable | undefined, block: Writable | undefined): void {
    if (!info || !block) return;
    info.on("error", () => {});
    block.on("error", () => {});
    let text = "";
    const release = () => {
      block.end("go");
      info.destroy();
    };
    info.on("data", (d: Buffer) => {
      if (this.net) return;
      text += d.toString("utf8");
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (!m) return;
      this.net = attachNetwork(Number(m[1]));
      void this.net.ready.then((r) => {
        if (!r.ok) this.networkProblem = r.reason;
        // without slirp4netns the command still runs, confined, with no network but its loopback
        release();
      });
    });
  }

  /** The limit the command went past, if any; stops slirp4netns and removes the cgroup. */
  async finish(): Promise<LimitHit | undefined> {
    clearInterval(this.watch);
    this.hit ??= this.cgroup?.hit();
    this.net?.stop();
    this.pins.close();
    releasePlaceholders(this.args);
    await this.cgroup?.remove();
    return this.hit;
  }
}
