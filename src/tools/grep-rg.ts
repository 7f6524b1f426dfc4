// grep's ripgrep engine. ripgrep's regex engine takes time linear in the text whatever the
// pattern (no backtracking), runs outside the event loop, and is what Pi uses; it is read as
// JSON lines (`--json`) and stopped as soon as enough is collected, on abort or at the time limit.
// Flags keep the tool's meaning: hidden files searched, .git and node_modules skipped, binary
// files skipped, symlinks not followed, ignore files not read, results in path order.
//
// ripgrep opens the directories below the root by path, on its own: a link swapped in a
// subdirectory while it walks is beyond the daemon's descriptor checks. So in a sandboxed session
// it runs inside the sandbox (read-only, no network), where pith's home is an empty folder and
// nothing is writable: a race can at worst show it what the model's bash could read anyway.
import { findOnPath } from "./find-on-path.js";
import { BWRAP, bwrapArgs, type SandboxMounts, type SandboxPolicy } from "./sandbox.js";
import { PinnedDirs } from "./sandbox-pins.js";
import { GrepCollector, type GrepCollected } from "./grep-output.js";
import type { GrepRequest } from "./grep-js.js";
import { killProcessGroup } from "./process-group.js";
import { reaper, spawnTracked } from "./reaper.js";

let rgPath: string | null | undefined;

/** ripgrep on PATH (looked up once), or null. */
export function findRipgrep(): string | null {
  if (rgPath === undefined) rgPath = findOnPath("rg");
  return rgPath;
}

/** ripgrep refused the pattern (its syntax is Rust's: no look-around, no backreferences). */
export class RipgrepPatternError extends Error {}

interface RgEvent {
  type: string;
  data?: { path?: { text?: string; bytes?: string }; lines?: { text?: string; bytes?: string }; line_number?: number };
}

function text(field: { text?: string; bytes?: string } | undefined): string {
  if (!field) return "";
  return field.text ?? Buffer.from(field.bytes ?? "", "base64").toString("utf8");
}

function stripNewline(s: string): string {
  return s.endsWith("\r\n") ? s.slice(0, -2) : s.endsWith("\n") ? s.slice(0, -1) : s;
}

/** rg's argument for one of our globs: its syntax is gitignore's, where a leading "!" negates. */
function rgGlob(glob: string): string {
  let g = glob.trim();
  while (g.startsWith("./")) g = g.slice(2);
  if (g.startsWith("/")) g = g.slice(1);
  return g.startsWith("!") ? `\\${g}` : g;
}

export interface RipgrepRun {
  rg: string;
  req: GrepRequest;
  isFile: boolean;
  /**
   * The directory searched, as a path naming its open, checked descriptor (/proc/self/fd/N): rg
   * starts there (the child's chdir happens before exec, while the descriptor is still open), so
   * a root swapped for a link after the check is not followed.
   */
  rootDir?: string;
  /**
   * The file searched, as /proc/<daemon pid>/fd/N of its open, checked descriptor: rg opens that
   * very file, not whatever the path names by the time it starts.
   */
  rootFile?: string;
  env?: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeLimitMs: number;
  /**
   * Run inside the sandbox with these mounts (mounts.chdir: the checked root directory's real
   * path). A file is then given to rg as its checked descriptor, passed as fd 3 (`fileFd`).
   */
  sandbox?: { policy: SandboxPolicy; mounts: SandboxMounts };
  fileFd?: number;
}

/** rg in a read-only sandbox with no network; a file searched is its checked descriptor, fd 3. */
function spawnSandboxed(run: RipgrepRun, sandbox: NonNullable<RipgrepRun["sandbox"]>, args: string[], cwd: string | undefined, fileFd: number | undefined) {
  const pins = new PinnedDirs(fileFd === undefined ? 3 : 4);
  try {
    const argv = bwrapArgs({ ...sandbox.policy, mode: "readonly", network: "off" }, sandbox.mounts, [run.rg, ...args], {}, pins);
    return spawnTracked(BWRAP, argv, { cwd, env: run.env, passFds: [...(fileFd === undefined ? [] : [fileFd]), ...pins.fds] });
  } finally {
    pins.close(); // the child has its own copies, or never started
  }
}

/** Searches with ripgrep; resolves with what was collected (rejects RipgrepPatternError for a pattern it cannot read). */
export function searchRipgrep(run: RipgrepRun): Promise<GrepCollected & { aborted?: boolean }> {
  const { req } = run;
  const args = ["--json", "--no-config", "--hidden", "--no-ignore", "--sort", "path", "-g", "!.git", "-g", "!node_modules"];
  for (const rel of req.skip) args.push("-g", `!/${rel}`);
  if (req.glob !== undefined) args.push("-g", rgGlob(req.glob));
  if (req.ignoreCase) args.push("-i");
  if (req.literal) args.push("-F");
  if (req.context > 0) args.push("-C", String(req.context));
  args.push("-e", req.pattern);
  // a file is named as the model wrote it; in a directory, paths are relative to it (no path argument)
  const sandboxedFile = run.sandbox !== undefined && run.isFile && run.fileFd !== undefined;
  if (run.isFile) args.push("--", sandboxedFile ? "/dev/fd/3" : (run.rootFile ?? req.root));
  const cwd = run.isFile ? undefined : (run.rootDir ?? req.root);
  const child = run.sandbox ? spawnSandboxed(run, run.sandbox, args, cwd, sandboxedFile ? run.fileFd : undefined) : spawnTracked(run.rg, args, { cwd, env: run.env });
  const out = new GrepCollector(req.limit);

  return new Promise((resolve, reject) => {
    let buffered = "";
    let stderr = "";
    let finished = false;
    let aborted = false;
    /** after the limit's last match: context lines still to take from its file */
    let trailing: { path: string; left: number } | null = null;
    const stop = () => {
      if (child.pid !== undefined) void killProcessGroup(child.pid, 0).then(() => reaper.untrack(child.pid!));
    };
    const timer = setTimeout(() => {
      out.stop("time");
      stop();
    }, run.timeLimitMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    run.signal.addEventListener("abort", onAbort, { once: true });
    // an abort while the path was being resolved came before this listener
    if (run.signal.aborted) onAbort();

    const onEvent = (ev: RgEvent) => {
      if (out.stoppedAt || (ev.type !== "match" && ev.type !== "context")) return;
      const path = text(ev.data?.path);
      const label = run.isFile ? req.label : path;
      const n = ev.data?.line_number ?? 0;
      const line = stripNewline(text(ev.data?.lines));
      if (trailing && (path !== trailing.path || ev.type === "match" || trailing.left === 0)) {
        out.stop("limit");
        return stop();
      }
      if (ev.type === "context") {
        if (!out.context(label, n, line)) return stop();
        if (trailing) trailing.left--;
        return;
      }
      if (!out.match(label, n, line)) return stop();
      if (out.matches >= req.limit) {
        // the last allowed match: its trailing context, then stop
        if (req.context === 0) {
          out.stop("limit");
          return stop();
        }
        trailing = { path, left: req.context };
      }
    };

    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        try {
          onEvent(JSON.parse(line) as RgEvent);
        } catch {
          // not a JSON line: ignore (rg writes only JSON to stdout with --json)
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.on("error", (err) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      run.signal.removeEventListener("abort", onAbort);
      if (child.pid !== undefined) reaper.untrack(child.pid);
      if (aborted) return resolve({ ...out.collected(), aborted: true });
      // 0: matches, 1: none; 2: an error (only a pattern it cannot read matters: the rest are unreadable files)
      if (code === 2 && out.matches === 0 && /regex parse error|error parsing|look-around|backreferences/i.test(stderr)) {
        return reject(new RipgrepPatternError(stderr.trim().split("\n").slice(-3).join(" ")));
      }
      resolve(out.collected());
    });
  });
}
