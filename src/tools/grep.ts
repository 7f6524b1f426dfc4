// grep: search file contents for a regular expression. The pattern comes from the model, and a
// backtracking engine can spend seconds (growing exponentially) on one line, so no search runs on
// the event loop: ripgrep (linear time, Pi's choice) when it is installed; otherwise, or for a
// pattern only JavaScript reads (look-around, backreferences), the JavaScript engine in a worker
// thread. Either can be stopped at once (abort) and stops itself at a time limit.
// .git and node_modules are skipped, binary files too, symlinks are not followed, .gitignore is
// not read; pith's own folder is never searched. Output is the same whichever engine ran.
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import { canVerifyDescriptors, openDirectory, openExisting } from "./confined-fs.js";
import { abortedError, fsError, throwIfAborted } from "./fs-error-messages.js";
import { globMatcher } from "./glob.js";
import { grepResult, type GrepCollected } from "./grep-output.js";
import type { GrepRequest } from "./grep-js.js";
import { findRipgrep, RipgrepPatternError, searchRipgrep } from "./grep-rg.js";
import { deniedInside, resolvePath } from "./paths.js";
import { sandboxAvailable, sessionMounts, withRuntimeDirs, type SandboxMounts } from "./sandbox.js";
import { MAX_MATCH_LINE_CHARS } from "./truncate.js";
import { ToolError, type ToolContext, type ToolOutput } from "./types.js";
import { zodTool } from "./zod-tool.js";

const GREP_DEFAULT_LIMIT = 100;
/** A search still running after this long is stopped (with what it found so far, where it can tell). */
const GREP_TIME_LIMIT_MS = 60_000;

// parameter names and meanings as in Pi (literal and context included, so calls from Pi sessions mean the same)
const schema = z.object({
  pattern: z.string().describe("Regular expression to search for (ripgrep's syntax, close to JavaScript's for everyday patterns), or plain text with literal: true"),
  path: z.string().optional().describe("Directory or file to search (default: the working directory)"),
  glob: z.string().optional().describe("Only search files matching this glob, e.g. '*.ts' (file name at any depth) or 'src/**/*.test.ts' (path relative to the search directory)"),
  ignoreCase: z.boolean().optional().describe("Match case-insensitively (default false)"),
  literal: z.boolean().optional().describe("Treat pattern as plain text rather than a regular expression (default false)"),
  context: z.number().int().min(0).optional().describe("Lines of context to show before and after each match (default 0)"),
  limit: z.number().int().min(1).optional().describe(`Most matches to return (default ${GREP_DEFAULT_LIMIT})`),
});

export type GrepParams = z.infer<typeof schema>;

export const grepTool = zodTool<GrepParams>({
  name: "grep",
  effects: "read",
  description:
    `Search file contents for a regular expression. Returns matching lines as "file:line: text", with file ` +
    `paths relative to the searched directory; context lines (if asked for) look like "file-line- text". ` +
    `Searches hidden files, skips .git, node_modules and binary files. Stops at ${GREP_DEFAULT_LIMIT} matches ` +
    `by default; lines longer than ${MAX_MATCH_LINE_CHARS} characters are cut.`,
  schema,
  execute: (params, ctx) => runGrep(params, ctx),
});

type GrepEngine = "auto" | "ripgrep" | "js";

export interface GrepRunOptions {
  /** "auto" (default): ripgrep when installed; PITH_GREP_ENGINE=js forces the worker (tests, diagnosis) */
  engine?: GrepEngine;
  timeLimitMs?: number;
}

export async function runGrep(params: GrepParams, ctx: ToolContext, options: GrepRunOptions = {}): Promise<ToolOutput> {
  throwIfAborted(ctx.signal);
  const shown = params.path ?? ".";
  const limit = params.limit ?? GREP_DEFAULT_LIMIT;
  const timeLimitMs = options.timeLimitMs ?? GREP_TIME_LIMIT_MS;
  const { absolute, real } = await resolvePath(shown, ctx);
  const info = await stat(absolute).catch((err) => {
    throw fsError(err, shown);
  });
  if (!info.isFile() && !info.isDirectory()) throw new ToolError(`${shown} is neither a file nor a directory`);
  if (params.glob !== undefined) {
    try {
      globMatcher(params.glob);
    } catch (err) {
      throw new ToolError(`Invalid glob ${JSON.stringify(params.glob)}: ${(err as Error).message}`);
    }
  }
  const req: GrepRequest = {
    pattern: params.pattern,
    literal: params.literal ?? false,
    ignoreCase: params.ignoreCase ?? false,
    root: absolute,
    isDirectory: info.isDirectory(),
    label: shown,
    glob: params.glob,
    context: params.context ?? 0,
    limit,
    skip: info.isDirectory() ? deniedInside(real, ctx.deniedPaths) : [],
    policy: { cwd: ctx.cwd, realCwd: ctx.realCwd, allowOutsideCwd: ctx.allowOutsideCwd, deniedPaths: ctx.deniedPaths, readOnlyPaths: ctx.readOnlyPaths, tempDir: ctx.tempDir },
  };
  const engine = options.engine ?? ((process.env.PITH_GREP_ENGINE as GrepEngine | undefined) || "auto");
  // a sandboxed session whose sandbox cannot run here: the JavaScript engine, which opens
  // everything itself through checked descriptors, rather than ripgrep outside the wall
  const rg = engine === "js" || (ctx.sandbox && !sandboxAvailable().ok) ? null : findRipgrep();
  let collected: (GrepCollected & { aborted?: boolean }) | undefined;
  if (rg) {
    // ripgrep opens files itself: it starts from what was opened and checked here (see RipgrepRun)
    const root = await (info.isDirectory() ? openDirectory(absolute, { ctx, shown }) : openExisting(absolute, { ctx, shown })).catch((err) => Promise.reject(fsError(err, shown)));
    const byDescriptor = canVerifyDescriptors();
    try {
      collected = await searchRipgrep({
        rg,
        req,
        isFile: info.isFile(),
        rootDir: info.isDirectory() && byDescriptor ? root.path : undefined,
        rootFile: info.isFile() && byDescriptor ? `/proc/${process.pid}/fd/${root.handle.fd}` : undefined,
        env: ctx.env,
        signal: ctx.signal,
        timeLimitMs,
        ...(ctx.sandbox && byDescriptor ? { sandbox: { policy: ctx.sandbox, mounts: ripgrepMounts(ctx, root.real, info.isDirectory()) }, fileFd: root.handle.fd } : {}),
      });
    } catch (err) {
      // a pattern only JavaScript reads goes to the JavaScript engine; other failures are real
      if (!(err instanceof RipgrepPatternError)) throw err;
    } finally {
      await root.handle.close().catch(() => {});
    }
  } else if (engine === "ripgrep") throw new ToolError("ripgrep (rg) is not installed: install the Debian package ripgrep");
  collected ??= await searchInWorker(req, ctx.signal, timeLimitMs);
  if (collected.aborted || ctx.signal.aborted) throw abortedError();
  return grepResult(collected, limit, timeLimitMs);
}

/**
 * What sandboxed ripgrep sees: the session's view (pith's home and the runtime dirs hidden, the
 * project's .pith read-only) plus the root, read-only where the cwd does not show it (a root
 * under the host's /tmp, the session's spill dir, is not covered by the sandbox's private /tmp).
 * The root is the real path the kernel named for the descriptor opened and checked above, never
 * the path the model gave. It starts in the root.
 */
function ripgrepMounts(ctx: ToolContext, rootReal: string, isDirectory: boolean): SandboxMounts {
  return withRuntimeDirs({
    ...sessionMounts(ctx),
    ...(isDirectory ? { chdir: rootReal, shown: [rootReal] } : {}),
  });
}

/**
 * The worker beside this file. Running from source (tests, through tsx), the worker registers tsx
 * itself: the parent's loader hooks do not reach worker threads.
 */
function startWorker(workerData: GrepRequest): Worker {
  // a pattern can also make a regular expression hungry: the worker dies, the daemon does not
  const resourceLimits = { maxOldGenerationSizeMb: 512 };
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./grep-worker.js", import.meta.url), { workerData, resourceLimits });
  const source = new URL("./grep-worker.ts", import.meta.url).href;
  return new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`, { eval: true, workerData, resourceLimits });
}

/** The JavaScript engine in a worker thread, terminated on abort or at the time limit. */
function searchInWorker(req: GrepRequest, signal: AbortSignal, timeLimitMs: number): Promise<GrepCollected & { aborted?: boolean }> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(req);
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      fn();
    };
    const onAbort = () => finish(() => resolve({ lines: [], matches: 0, linesCut: false, aborted: true }));
    const timer = setTimeout(
      () => finish(() => reject(new ToolError(`The search was stopped after ${Math.round(timeLimitMs / 1000)} s without finishing (the pattern may backtrack badly). Narrow the pattern, path or glob, or use literal: true.`))),
      timeLimitMs,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    // an abort while the path was being resolved came before this listener
    if (signal.aborted) onAbort();
    worker.once("message", (msg: { ok: true; result: GrepCollected } | { ok: false; invalidPattern: boolean; message: string }) =>
      finish(() => {
        if (msg.ok) resolve(msg.result);
        else if (msg.invalidPattern) reject(new ToolError(`Invalid regular expression ${JSON.stringify(req.pattern)}: ${msg.message}. Use literal: true to search for the text as is.`));
        else reject(new ToolError(`grep failed: ${msg.message}`));
      }),
    );
    worker.once("error", (err) => finish(() => reject(new ToolError(`grep failed: ${err.message}`))));
    worker.once("exit", () => finish(() => reject(new ToolError("grep's search ended without an answer"))));
  });
}
