// Shared bits for the tool tests: a context for a directory, and the text of a result.
import assert from "node:assert/strict";
import type { ToolContext, ToolOutput } from "../../src/tools/types.js";
import { ToolError } from "../../src/tools/types.js";
import { processStat } from "../../src/tools/process-group.js";

export function ctxFor(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, signal: new AbortController().signal, ...extra };
}

/** All text blocks of a result, joined. */
export function textOf(out: ToolOutput): string {
  return out.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
}

/** Asserts that `promise` rejects with a ToolError whose message matches every pattern. */
export async function rejectsTool(promise: Promise<unknown>, ...patterns: RegExp[]): Promise<ToolError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ToolError, `expected a ToolError, got ${caught === undefined ? "a result" : String(caught)}`);
  for (const p of patterns) assert.match(caught.message, p);
  return caught;
}

/** A process exists and is not a zombie (an unreaped dead orphan does not count as left behind). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const st = processStat(pid);
  return st === undefined || (st.state !== "Z" && st.state !== "X");
}
