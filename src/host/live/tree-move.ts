// navigateTree: moving the session's leaf to another entry, optionally summarizing the branch
// being left into a branch_summary entry first. A move without a summary reads nothing (a pointer
// moves and a marker is appended); only a summary parses the two paths, without caching them.
import { prepareBranchSummary, summarizeBranch, CompactionAbortedError, type CompactionSettings, type SummarizerLimits, type SummarizerPort } from "../../compaction/index.js";
import type { SessionFile } from "../../session/session-file.js";
import { ErrorCode, HostError } from "../host-error.js";
import type { EventFields } from "./session-events.js";

export interface TreeMoveResult {
  leafId: string | null;
  branchSummaryEntryId?: string;
  editorText?: string;
}

export interface BranchSummarizer {
  port: SummarizerPort;
  limits: SummarizerLimits;
  settings: CompactionSettings;
  /** the context size automatic compaction runs at: the summarized span is kept under it */
  threshold: number;
  emit<E extends "branch_summary_start" | "branch_summary_end">(type: E, fields: EventFields<E>): void;
}

export async function moveInTree(file: SessionFile, targetId: string, summarize: false | BranchSummarizer, signal: AbortSignal, instructions?: string): Promise<TreeMoveResult> {
  const target = file.entry(targetId);
  if (!target) throw new HostError(ErrorCode.EntryNotFound, `no entry ${targetId} in this session`, { entryId: targetId });
  // a user message goes back to the editor: the leaf moves to its parent
  let newLeaf: string | null = targetId;
  let editorText: string | undefined;
  if (target.type === "message" && target.message.role === "user") {
    newLeaf = target.parentId;
    const c = target.message.content;
    editorText = typeof c === "string" ? c : c.map((b) => (b.type === "text" ? b.text : "")).join("");
  }
  const moveOnly = (): TreeMoveResult => {
    file.branch(newLeaf);
    file.sync();
    return { leafId: file.leafId, editorText };
  };
  if (!summarize) return moveOnly();
  const oldPath = file.branchPath(file.leafId, { keep: false });
  const prep = prepareBranchSummary(oldPath, newLeaf === null ? [] : file.branchPath(newLeaf, { keep: false }), summarize.threshold);
  if (!prep) return moveOnly();
  summarize.emit("branch_summary_start", { targetId, fromId: file.leafId });
  let result;
  try {
    result = await summarizeBranch(prep, { port: summarize.port, limits: summarize.limits, settings: summarize.settings, signal, instructions });
  } catch (err) {
    const aborted = err instanceof CompactionAbortedError;
    summarize.emit("branch_summary_end", { aborted, error: aborted ? undefined : (err as Error).message });
    throw aborted ? new HostError(ErrorCode.Aborted, "branch summary aborted") : err;
  }
  const entry = file.branchWithSummary(newLeaf, result.summary, result.details);
  summarize.emit("branch_summary_end", { aborted: false, entryId: entry.id, summary: result.summary, fallback: result.fallback });
  return { leafId: file.leafId, branchSummaryEntryId: entry.id, editorText };
}
