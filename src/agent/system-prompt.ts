// pith's system prompt, and the project context files (AGENTS.md / CLAUDE.md) that go with it.
//
// A context file is the repository's text (or the model's: its bash can make one), and what it
// says is sent to the API. So it is read like the file tools read: through a descriptor checked
// after opening (confined-fs.ts), regular files only, a bounded size. A link may lead to another
// file in the directory the context file was found in (CLAUDE.md -> AGENTS.md is common), never
// out of it (AGENTS.md -> ~/.ssh/id_rsa would put the key in the prompt), and never into pith's
// own folders (the token, settings, transcripts).
import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readVerifiedSync } from "../tools/confined-fs.js";
import { deniedRoot, isInside } from "../tools/paths.js";
import type { Tool } from "../tools/types.js";

const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_CONTEXT_FILE_CHARS = 100_000;
/** Bytes read of a context file: enough for MAX_CONTEXT_FILE_CHARS characters of any UTF-8. */
const MAX_CONTEXT_FILE_BYTES = MAX_CONTEXT_FILE_CHARS * 4;

export interface ContextFile {
  path: string;
  content: string;
}

/**
 * AGENTS.md / CLAUDE.md in cwd and every parent, the outermost first (the nearest has the last
 * word). `deniedPaths` (real paths: pith's home and sessions folder) are never read; a file there,
 * or one whose links lead out of its directory, is left out quietly.
 */
export function findContextFiles(cwd: string, deniedPaths: readonly string[] = []): ContextFile[] {
  const found: ContextFile[] = [];
  let dir = resolve(cwd);
  const realCwd = realOrSelf(dir);
  for (;;) {
    const realDir = realOrSelf(dir);
    const allowed = (real: string) => isInside(realDir, real) && deniedRoot(real, realCwd, deniedPaths) === undefined;
    for (const name of CONTEXT_FILE_NAMES) {
      const path = join(dir, name);
      const bytes = readVerifiedSync(path, MAX_CONTEXT_FILE_BYTES, allowed);
      if (bytes !== undefined) found.push({ path, content: bytes.toString("utf8").slice(0, MAX_CONTEXT_FILE_CHARS) });
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found.reverse();
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
  const files = options.contextFiles ?? findContextFiles(options.cwd, options.deniedPaths);
  if (files.length > 0) {
    parts.push(`Project instructions (from the files below; follow them):\n\n${files.map((f) => `<file path="${f.path}">\n${f.content.trim()}\n</file>`).join("\n\n")}`);
  }
  if (options.appendSystemPrompt) parts.push(options.appendSystemPrompt);
  return parts.join("\n\n");
}
