// Tool processes must not outlive the daemon, however it dies. bash runs each command in its own
// process group, which the daemon kills on abort and at shutdown; but after a kill -9 (or a
// crash) nobody would. So the daemon keeps one tiny shell beside it, the reaper, and tells it
// every group it starts ("+PGID") and every group that is gone ("-PGID"). The reaper reads its
// stdin until end of file, which comes exactly when the daemon's end of the pipe closes: at exit
// or death, whatever the cause. It then signals every group still listed: TERM, and KILL a second
// later. It ignores the terminal's signals, so a Ctrl-C that ends the daemon does not end it first.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from "node:child_process";
import { writeSync } from "node:fs";
import { processGroupAlive } from "./process-group.js";

const REAPER_SCRIPT = `
trap '' INT TERM HUP QUIT
groups=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups \${line#+}" ;;
    -*) keep=""; for g in $groups; do [ "$g" = "\${line#-}" ] || keep="$keep $g"; done; groups="$keep" ;;
  esac
done
[ -n "$groups" ] || exit 0
for g in $groups; do kill -TERM -$g 2>/dev/null; done
sleep 1
for g in $groups; do kill -KILL -$g 2>/dev/null; done
`;

/** How often groups that ended are taken off the list (so a reused pid is never signalled). */
const PRUNE_MS = 10_000;

class Reaper {
  private child: ChildProcess | null = null;
  private readonly groups = new Set<number>();
  private pruneTimer: NodeJS.Timeout | undefined;

  /** Registers a process group the daemon started. */
  track(pgid: number): void {
    if (!this.ensure()) return;
    this.groups.add(pgid);
    this.write(`+${pgid}`);
    if (!this.pruneTimer) {
      this.pruneTimer = setInterval(() => this.prune(), PRUNE_MS);
      this.pruneTimer.unref();
    }
  }

  /** The group is gone (or was killed and waited for). */
  untrack(pgid: number): void {
    if (this.groups.delete(pgid)) this.write(`-${pgid}`);
  }

  /** Groups still listed (for tests). */
  get tracked(): number[] {
    return [...this.groups];
  }

  private prune(): void {
    for (const pgid of this.groups) if (!processGroupAlive(pgid)) this.untrack(pgid);
  }

  /**
   * Written at once, not through the stream's queue: a daemon killed right after starting a
   * command (before the event loop turns) must already have told the reaper about it.
   */
  private write(line: string): void {
    const stdin = this.child?.stdin;
    if (!stdin) return;
    const fd = (stdin as unknown as { _handle?: { fd?: number } })._handle?.fd;
    try {
      if (typeof fd === "number" && fd >= 0) {
        writeSync(fd, `${line}\n`);
        return;
      }
    } catch (err) {
      // EAGAIN (a full pipe: the reaper is behind) falls back to the queue; anything else means it is gone
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
    }
    try {
      stdin.write(`${line}\n`);
    } catch {
      // the reaper is gone; ensure() starts another for the next group
    }
  }

  private ensure(): boolean {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return true;
    try {
      const child = spawn("/bin/sh", ["-c", REAPER_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
      child.on("error", () => {
        if (this.child === child) this.child = null;
      });
      child.stdin!.on("error", () => undefined);
      // neither the process nor its pipe keeps the daemon's event loop alive
      child.unref();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      this.child = child;
      // a new reaper knows nothing yet: tell it what the old one knew
      for (const pgid of this.groups) this.write(`+${pgid}`);
      return true;
    } catch {
      return false;
    }
  }
}

/** The process-wide reaper (started with the first tool process). */
export const reaper = new Reaper();

/** Runs "$@" once a line arrives on stdin, with stdin then closed; nothing at end-of-file. */
const GATE = ["/bin/sh", "-c", 'read -r go && exec "$@" </dev/null', "pith-gate"];
/** The same, the command then reading the rest of the pipe (the shell's read takes no byte past the line). */
const GATE_KEEPING_STDIN = ["/bin/sh", "-c", 'read -r go && exec "$@"', "pith-gate"];

export interface TrackedSpawnOptions extends Omit<SpawnOptions, "stdio" | "detached"> {
  /** more pipes after stdin, stdout and stderr (fds 3, 4, ...: the sandbox's handshake) */
  extraStdio?: number;
  /** open descriptors the command gets after extraStdio's pipes: a checked file, checked directories */
  passFds?: readonly number[];
  /** runs with the gate's pid before the gate opens (e.g. to put it in a cgroup) */
  beforeStart?: (pid: number) => void;
  /** the command reads the daemon's pipe as its stdin (an MCP server), instead of end-of-file */
  keepStdin?: boolean;
}

/**
 * Starts `file args` as the leader of a new process group registered with the reaper. The
 * command waits behind a gate (a `read` on its stdin) until its group is registered, so a daemon
 * killed in between leaves nothing running: the gate reads end-of-file and exits. Its stdin is
 * then closed (end-of-file for anything that reads it). If beforeStart throws, the gate is
 * closed unopened and the error is thrown. With keepStdin the stdin pipe stays the command's.
 */
export function spawnTracked(file: string, args: readonly string[], options: TrackedSpawnOptions): ChildProcessWithoutNullStreams {
  const { extraStdio = 0, passFds = [], beforeStart, keepStdin = false, ...spawnOptions } = options;
  const [gate, ...gateArgs] = keepStdin ? GATE_KEEPING_STDIN : GATE;
  const extra: ("pipe" | number)[] = [...Array<"pipe">(extraStdio).fill("pipe"), ...passFds];
  const stdio = ["pipe", "pipe", "pipe", ...extra] as const;
  const child = spawn(gate, [...gateArgs, file, ...args], { ...spawnOptions, detached: true, stdio: [...stdio] }) as ChildProcessWithoutNullStreams;
  child.stdin.on("error", () => undefined); // a command that failed to start
  if (child.pid !== undefined) reaper.track(child.pid);
  if (beforeStart && child.pid !== undefined) {
    try {
      beforeStart(child.pid);
    } catch (err) {
      child.stdin.end(); // end-of-file: the gate exits without running anything
      throw err;
    }
  }
  if (keepStdin) child.stdin.write("go\n");
  else child.stdin.end("go\n");
  return child;
}
