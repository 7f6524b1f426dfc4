// The sandbox of a command the editor runs in its terminal (ACP terminal/create). The editor
// starts the process, not pith, so what SandboxRun hands bwrap through pith's own spawn — the
// seccomp filter on a descriptor, the gate's pid put in the command's cgroup, the pid report and
// the start gate slirp4netns needs — goes through files in a private directory of pith's (0700),
// which the launcher (terminal-launch.ts, the terminal's command) opens before it becomes bwrap:
//   seccomp  the filter, bwrap's --seccomp descriptor (3);
//   info     bwrap writes the sandbox's pid there (--info-fd 4), which pith polls;
//   block    a FIFO handed into the sandbox (5), which the command's shell reads before anything
//            else: pith writes "go" once that pid is registered with the reaper (so the command
//            dies with the daemon) and, for an isolated network, once slirp4netns has brought the
//            network up. Anything else (end-of-file: the daemon went away first) and the shell
//            exits without running the command. (bwrap's own --block-fd would start the command
//            on end-of-file.) The shell then closes 3, 4 and 5: the command keeps none of them;
//   6-9      the directories bwrap binds (--bind-fd), opened by the launcher from the daemon's own
//            descriptors of them (/proc/<daemon pid>/fd/N: the open directory, not a path), so a
//            directory swapped for a link after pith checked it is not what gets bound (sandbox-pins.ts);
//   cgroup   the launcher writes its own pid into the command's cgroup.procs files before it
//            becomes bwrap (the gate's job under pith's spawn). Where it may not (the editor's
//            process cannot always be moved into pith's cgroup), the command gets the rlimits that
//            hold wherever no cgroup can be made (sandbox-cgroup.ts): the same fallback, not a
//            silent loss; the launcher tells the command's shell which one applies.
// bwrap's arguments are the ones SandboxRun builds, plus --new-session: a terminal gives the
// command a tty, into which a process that keeps it as controlling terminal could push input.
// Killing: the editor kills its process, and pith signals the sandbox's process group itself
// (bwrap's first process leads it; when it dies the pid namespace goes with it).
import { spawnSync } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { killProcessGroup, signalGroup } from "./process-group.js";
import { reaper } from "./reaper.js";
import { BWRAP, bwrapArgs, withRuntimeDirs, type SandboxFds, type SandboxMounts, type SandboxPolicy } from "./sandbox.js";
import { releasePlaceholders } from "./sandbox-mounts.js";
import { PinnedDirs } from "./sandbox-pins.js";
import { commandCgroup, rlimitPrefix, watchCgroup, type CommandCgroup, type LimitHit } from "./sandbox-cgroup.js";
import { attachNetwork, type SandboxNet } from "./sandbox-net.js";
import { CLOSE_DESCRIPTORS } from "./sandbox-run.js";
import { seccompFilter } from "./seccomp.js";

/** The command's shell waits for pith's "go" on 5, then closes the handshake's descriptors. */
const GATE = `read -r go <&5 && [ "$go" = go ] || { echo "pith: the command was not started (pith went away before its sandbox was ready)" >&2; exit 125; }; exec 3<&- 4>&- 5<&-; `;

/** The launcher (a /bin/sh, maybe dash) hands on descriptors up to 9: the directories get 6-9. */
const FIRST_PIN = 6;

/** How often the pid report is looked for (it comes as soon as the editor starts the launcher). */
const POLL_MS = 10;

export class TerminalSandbox {
  /** bwrap and its arguments: what the launcher becomes */
  readonly argv: string[];
  /** the cgroup.procs files the launcher joins (none: no cgroup, the rlimits apply) */
  readonly procsFiles: readonly string[];
  /** the launcher's redirections giving bwrap its descriptors (fixed text, no caller data) */
  readonly redirections: string;
  private readonly cgroup: CommandCgroup | undefined;
  private readonly isolated: boolean;
  private readonly pins = new PinnedDirs(FIRST_PIN, 9);
  private blockFd?: number;
  private pid?: number;
  private net?: SandboxNet;
  private poll?: NodeJS.Timeout;
  private watch?: NodeJS.Timeout;
  private hit?: LimitHit;
  /** killed or finished: the gate is never opened after this */
  private stopped = false;
  /** why the network could not be set up (the command then ran without one) */
  networkProblem?: string;

  /** `dir` is the command's private directory; `script` runs as `shell -c script` inside the sandbox. */
  constructor(
    readonly policy: SandboxPolicy,
    mounts: SandboxMounts,
    shell: string,
    script: string,
    private readonly dir: string,
  ) {
    const filter = seccompFilter();
    this.isolated = policy.network === "isolated";
    const root = process.getuid?.() === 0;
    const fds: SandboxFds = { ...(filter ? { seccomp: 3 } : {}), info: 4, newSession: true, ...(this.isolated ? { rootInNamespace: !root } : {}) };
    if (filter) writeFileSync(join(dir, "seccomp"), filter, { mode: 0o600 });
    writeFileSync(join(dir, "info"), "", { mode: 0o600 });
    const fifo = spawnSync("mkfifo", ["-m", "600", join(dir, "block")], { stdio: "ignore" });
    if (fifo.error || fifo.status !== 0) throw new Error(`mkfifo failed${fifo.error ? `: ${fifo.error.message}` : ""}`);
    // read-write: opening never waits for a reader, and the gate's read waits for our "go"
    this.blockFd = openSync(join(dir, "block"), constants.O_RDWR);
    this.cgroup = commandCgroup(policy.limits);
    this.procsFiles = this.cgroup?.procsFiles ?? [];
    const all = withRuntimeDirs(mounts);
    // $1 is the launcher's word: "cgroup" (joined) or "rlimit" (not: the same limits as where no cgroup can be made)
    const gated = `${GATE}${CLOSE_DESCRIPTORS}if [ "$1" = rlimit ]; then ${rlimitPrefix(policy.limits)}fi; shift; ${script}`;
    try {
      this.argv = [BWRAP, ...bwrapArgs(policy, all, [shell, "-c", gated, shell], fds, this.pins)];
      // the checked directories, opened again from the daemon's descriptors (numbers only: no caller data)
      const pinned = this.pins.fds.map((fd, i) => ` ${FIRST_PIN + i}<"/proc/${process.pid}/fd/${fd}"`).join("");
      this.redirections = `${filter ? '3<"$d/seccomp" ' : ""}4>"$d/info" 5<"$d/block"${pinned}`;
    } catch (err) {
      // the mounts cannot be built (the cwd is gone): nothing is left open or behind
      this.pins.close();
      this.closeBlock();
      void this.cgroup?.remove().catch(() => {});
      throw err;
    }
  }

  /** Once the editor has the command: waits for bwrap's pid, registers it, brings up the network, lets the command start. */
  start(onLimit: (hit: LimitHit) => void): void {
    const look = () => {
      this.poll = undefined;
      if (this.stopped) return;
      const m = /"child-pid"\s*:\s*(\d+)/.exec(readText(join(this.dir, "info")));
      if (!m) {
        this.poll = setTimeout(look, POLL_MS);
        return;
      }
      this.pid = Number(m[1]);
      // bwrap is running: the launcher opened its copies of the directories before it became bwrap
      this.pins.close();
      reaper.track(this.pid);
      if (!this.isolated) return this.release();
      this.net = attachNetwork(this.pid);
      void this.net.ready.then((r) => {
        if (!r.ok) this.networkProblem = r.reason;
        // without slirp4netns the command still runs, confined, with no network but its loopback
        this.release();
      });
    };
    look();
    if (this.cgroup) {
      this.watch = watchCgroup(this.cgroup, (hit) => {
        if (this.hit) return;
        this.hit = hit;
        onLimit(hit);
      });
    }
  }

  /** Kills the sandbox's processes (when its pid is known); a command not started yet never will be. */
  async kill(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.pid !== undefined) await killProcessGroup(this.pid, graceMs);
  }

  /** Once the command is gone: the limit it went past, if any; stops the network, removes the cgroup. */
  async finish(): Promise<LimitHit | undefined> {
    this.stopped = true;
    clearTimeout(this.poll);
    clearInterval(this.watch);
    this.hit ??= this.cgroup?.hit();
    this.net?.stop();
    this.closeBlock();
    this.pins.close();
    const gone = this.pid === undefined || !signalGroup(this.pid, 0);
    if (this.pid !== undefined && gone) reaper.untrack(this.pid);
    // a sandbox still alive keeps its placeholders (removing a mount point unmounts it there too)
    if (gone) releasePlaceholders(this.argv);
    await this.cgroup?.remove();
    return this.hit;
  }

  private release(): void {
    if (this.blockFd === undefined || this.stopped) return;
    try {
      writeSync(this.blockFd, "go\n");
    } catch {
      // bwrap is gone already
    }
    this.closeBlock();
  }

  private closeBlock(): void {
    if (this.blockFd === undefined) return;
    closeSync(this.blockFd);
    this.blockFd = undefined;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
