// pith's system prompt, and the project context files (AGENTS.md / CLAUDE.md) that go with it.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Tool } from "../tools/types.js";

export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_CONTEXT_FILE_CHARS = 100_000;

export interface ContextFile {
  path: string;
  content: string;
}

/** AGENTS.md / CLAUDE.md in cwd and every parent, the outermost first (the nearest has the last word). */
export function findContextFiles(cwd: string): ContextFile[] {
  const found: ContextFile[] = [];
  let dir = resolve(cwd);
  for (;;) {
    for (const name of CONTEXT_FILE_NAMES) {
      const path = join(dir, name);
      try {
        if (existsSync(path) && statSync(path).isFile()) found.push({ path, content: readFileSync(path, "utf8").slice(0, MAX_CONTEXT_FILE_CHARS) });
      } catch {
        // unreadable: skip it rather than fail the session
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found.reverse();
}

export interface SystemPromptOptions {
  cwd: string;
  tools: readonly Pick<Tool, "name" | "description">[];
  /** replaces the built-in prompt (project context is still added) */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  contextFiles?: ContextFile[];
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
  const files = options.contextFiles ?? findContextFiles(options.cwd);
  if (files.length > 0) {
    parts.push(`Project instructions (from the files below; follow them):\n\n${files.map((f) => `<file path="${f.path}">\n${f.content.trim()}\n</file>`).join("\n\n")}`);
  }
  if (options.appendSystemPrompt) parts.push(options.appendSystemPrompt);
  return parts.join("\n\n");
}
