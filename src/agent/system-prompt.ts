// pith's system prompt, and the project context files (AGENTS.md / CLAUDE.md) that go with it.
//
// A context file is the repository's text (or the model's: its bash can make one), and what it
// says is sent to the API. So it is read like the file tools read: through a descriptor checked
// after opening (confined-fs.ts), regular files only (a FIFO or a device is never read: the read
// runs on the daemon's event loop), a bounded size. A link may lead to another file in the
// directory the context file was found in (CLAUDE.md -> AGENTS.md is common), never out of it
// (AGENTS.md -> ~/.ssh/id_rsa would put the key in the prompt), and never into pith's own folders
// (the token, settings, transcripts). Parents are read up to /, so a directory another user can
// write (/tmp) or owns is not read from (context-file-trust.ts). Each file left out is reported.
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { canVerifyDescriptors, readVerifiedSync } from "../tools/confined-fs.js";
import { deniedRoot, isInside } from "../tools/paths.js";
import type { Tool } from "../tools/types.js";
import { untrustedDirectory, untrustedFile } from "./context-file-trust.js";

const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_CONTEXT_FILE_CHARS = 100_000;
/** Bytes read of a context file: enough for MAX_CONTEXT_FILE_CHARS characters of any UTF-8. */
const MAX_CONTEXT_FILE_BYTES = MAX_CONTEXT_FILE_CHARS * 4;

export interface ContextFile {
  path: string;
  content: string;
}

/** A context file left out of the prompt (or cut), and why: for the log. */
interface ContextFileNote {
  path: string;
  why: string;
  /** its start is in the prompt (it was only too long) */
  cut?: true;
}

/**
 * AGENTS.md / CLAUDE.md in cwd and every parent, the outermost first (the nearest has the last
 * word). `deniedPaths` (real paths: pith's home and sessions folder) are never read; a file there,
 * one whose links lead out of its directory, one that is not a regular file, and one in a
 * directory others may write or that another user owns is left out, and `note` says so.
 */
export function findContextFiles(cwd: string, deniedPaths: readonly string[] = [], note: (n: ContextFileNote) => void = () => {}): ContextFile[] {
  const found: ContextFile[] = [];
  let dir = resolve(cwd);
  const realCwd = realOrSelf(dir);
  for (;;) {
    found.push(...contextFilesIn(dir, realCwd, deniedPaths, note));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found.reverse();
}

/** The context files of one directory, read through the open directory (its owner and mode checked first). */
function contextFilesIn(dir: string, realCwd: string, deniedPaths: readonly string[], note: (n: ContextFileNote) => void): ContextFile[] {
  let dirFd: number;
  try {
    dirFd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return []; // missing or not ours to enter: nothing to read
  }
  try {
    const verify = canVerifyDescriptors();
    const realDir = verify ? readlinkSync(`/proc/self/fd/${dirFd}`) : realOrSelf(dir);
    const distrust = untrustedDirectory(fstatSync(dirFd));
    const allowed = (real: string) => isInside(realDir, real) && deniedRoot(real, realCwd, deniedPaths) === undefined;
    const found: ContextFile[] = [];
    for (const name of CONTEXT_FILE_NAMES) {
      const path = join(dir, name);
      const at = verify ? `/proc/self/fd/${dirFd}/${name}` : path;
      if (distrust !== undefined) {
        if (present(at)) note({ path, why: distrust });
        continue;
      }
      const read = readVerifiedSync(at, {
        maxBytes: MAX_CONTEXT_FILE_BYTES,
        oversize: "cut",
        isAllowed: allowed,
        refused: "it is a link leading out of its directory or into pith's own files",
        check: (_fd, stats) => untrustedFile(stats),
      });
      if (read.kind === "skipped") note({ path, why: read.why });
      if (read.kind !== "read") continue;
      const text = read.bytes.toString("utf8");
      if (read.cut || text.length > MAX_CONTEXT_FILE_CHARS) note({ path, why: `it is longer than ${MAX_CONTEXT_FILE_CHARS} characters`, cut: true });
      found.push({ path, content: text.slice(0, MAX_CONTEXT_FILE_CHARS) });
    }
    return found;
  } finally {
    closeSync(dirFd);
  }
}

/** Whether anything (a link included) is at `path`. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export interface SystemPromptOptions {
  cwd: string;
  tools: readonly Pick<Tool, "name" | "description">[];
  /** replaces the built-in prompt (project context is still added) */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  contextFiles?: ContextFile[];
  /** real paths context files are never read from (pith's home and sessions folder) */
  deniedPaths?: readonly string[];
  /** told of each context file left out (or cut), for the log */
  onContextFileNote?: (n: ContextFileNote) => void;
  now?: Date;
}

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const now = options.now ?? new Date();
  const base =
    options.systemPrompt ??
    `You are a coding agent working in a user's project through tools. You read code, change it, and run commands to check your work.

Tools:
${options.tools.map((t) => `- ${t.name}: ${t.description.split("\n")[0]}`).join("\n")}

How to work:
- Read the relevant code before changing it; prefer small, exact edits (edit) to rewriting whole files (write).
- After a change, check it: build, run the tests, or run the program.
- Keep answers short. Say what you did and what you found; show code only when asked or when it helps.
- If a request is ambiguous or risky (deleting data, rewriting history), ask before acting.
- Paths are relative to the working directory unless absolute.`;
  const parts = [base, `Current date: ${now.toISOString().slice(0, 10)}\nWorking directory: ${options.cwd}`];
  const files = options.contextFiles ?? findContextFiles(options.cwd, options.deniedPaths, options.onContextFileNote);
  if (files.length > 0) {
    parts.push(`Project instructions (from the files below; follow them):\n\n${files.map((f) => `<file path="${f.path}">\n${f.content.trim()}\n</file>`).join("\n\n")}`);
  }
  if (options.appendSystemPrompt) parts.push(options.appendSystemPrompt);
  return parts.join("\n\n");
}
