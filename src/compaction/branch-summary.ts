// Summaries of a branch the user leaves (navigating the tree elsewhere): the entries from the
// old leaf back to the common ancestor, newest first within a budget, with their file lists.
import type { AgentMessage } from "../messages/types.js";
import { entryToMessage } from "../session/context.js";
import { applyContextEdit, contextEditsOf, type ContextEdits } from "../session/context-edit.js";
import type { SessionEntry } from "../session/types.js";
import { estimateMessageTokens } from "./estimate.js";
import { extractiveSummary } from "./fallback.js";
import { collectFileOps, collectPreviousFileLists, emptyFileOps, fileLists, type FileLists } from "./file-ops.js";
import { assembleSummary } from "./prepare.js";
import { serializeMessages } from "./serialize.js";
import type { CompactionSettings } from "./settings.js";
import { CompactionAbortedError, summarizeBlocks, type SummarizerLimits, type SummarizerPort } from "./summarizer.js";

export interface BranchSummaryPreparation {
  /** deepest entry on both paths (null: the paths share no entry) */
  commonAncestorId: string | null;
  /** entries after the common ancestor on the old path, oldest first */
  entries: SessionEntry[];
  /** the messages to summarize (the newest within the budget), oldest first */
  messages: AgentMessage[];
  fileLists: FileLists;
}

export interface BranchSummaryResult {
  summary: string;
  details: FileLists & { fallback?: boolean };
  fallback?: { reason: string };
}

/** The entries of `oldPath` that `targetPath` does not share (both root first). */
export function branchDivergence(oldPath: readonly SessionEntry[], targetPath: readonly SessionEntry[]): { commonAncestorId: string | null; entries: SessionEntry[] } {
  let i = 0;
  while (i < oldPath.length && i < targetPath.length && oldPath[i].id === targetPath[i].id) i++;
  return { commonAncestorId: i > 0 ? oldPath[i - 1].id : null, entries: oldPath.slice(i) };
}

/** An entry's message as the branch left it: context edits among the branch's own entries apply to its messages (as in Pi 1.5.2). */
function messageOf(entry: SessionEntry, edits: ContextEdits): AgentMessage | undefined {
  if (entry.type === "compaction") return { role: "compactionSummary", summary: entry.summary, tokensBefore: entry.tokensBefore, timestamp: Date.parse(entry.timestamp) };
  const message = entryToMessage(entry);
  if (!message || (entry.type !== "message" && entry.type !== "custom_message")) return message;
  return applyContextEdit(message, edits.get(entry.id));
}

export function prepareBranchSummary(oldPath: readonly SessionEntry[], targetPath: readonly SessionEntry[], budgetTokens: number): BranchSummaryPreparation | null {
  const { commonAncestorId, entries } = branchDivergence(oldPath, targetPath);
  const edits = contextEditsOf(entries);
  const ops = emptyFileOps();
  const picked: AgentMessage[] = [];
  let used = 0;
  let full = false;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if ((e.type === "branch_summary" || e.type === "compaction") && !e.fromHook) collectPreviousFileLists(e.details, ops);
    const m = messageOf(e, edits);
    if (!m) continue;
    collectFileOps(m, ops); // messages past the budget still count for the file lists
    if (full) continue;
    const t = estimateMessageTokens(m);
    if (used + t > budgetTokens && picked.length > 0) {
      full = true;
      continue;
    }
    picked.push(m);
    used += t;
  }
  if (picked.length === 0) return null;
  return { commonAncestorId, entries, messages: picked.reverse(), fileLists: fileLists(ops) };
}

export async function summarizeBranch(
  prep: BranchSummaryPreparation,
  opts: { port: SummarizerPort; limits: SummarizerLimits; settings: CompactionSettings; signal: AbortSignal; instructions?: string },
): Promise<BranchSummaryResult> {
  const blocks = serializeMessages(prep.messages, { maxBlockChars: opts.settings.maxBlockChars });
  const maxTokens = Math.max(256, Math.min(Math.floor(0.8 * opts.settings.reserveTokens), opts.limits.maxOutputTokens));
  let text: string;
  let fallback: { reason: string } | undefined;
  try {
    const out = await summarizeBlocks(blocks, {
      port: opts.port,
      limits: opts.limits,
      kind: "branch",
      maxTokens,
      timeoutMs: opts.settings.summaryTimeoutMs,
      signal: opts.signal,
      promptOptions: { instructions: opts.instructions },
    });
    text = out.summary;
  } catch (err) {
    if (err instanceof CompactionAbortedError || opts.signal.aborted) throw new CompactionAbortedError();
    fallback = { reason: err instanceof Error ? err.message : String(err) };
    text = extractiveSummary(prep.messages, undefined, fallback.reason);
  }
  const details: BranchSummaryResult["details"] = { ...prep.fileLists };
  if (fallback) details.fallback = true;
  return { summary: assembleSummary(text, [], prep.fileLists), details, fallback };
}
