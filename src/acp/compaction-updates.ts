// Compaction as an ACP client sees it. A client that advertised `session.compaction` gets ACP's
// own compaction entity: created in progress at compaction_start, its summary streamed as
// compaction_summary_chunk while the summarizer writes, finished completed / failed / cancelled.
// Any other client gets one line in the conversation when it is over ("Context compacted: 41,200
// -> 9,800 tokens."), since a compaction changes what the model remembers and the user should know.
//
// Summaries written ahead of time (compaction_update reason "prepare", before any compaction_start)
// are not shown: nothing happened to the conversation yet, and most are never used as written.
// A long span is summarized in several requests, each rewriting the whole summary: when the next
// one begins, the summary shown so far is cleared (`summary: []`) and streams again.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { EventLine } from "../../protocol/events.js";
import type { CompactionEntry } from "../session/types.js";
import { contentBlocks, noteChunk, noticeOrNote, tokens, type ClientFeatures } from "./content.js";

export type CompactionEvent = Extract<EventLine, { type: "compaction_start" | "compaction_update" | "compaction_end" }>;

/** What one session remembers between a compaction's events: the one under way. */
export interface CompactionMemory {
  openId?: string;
}

/** The id of a compaction whose events carry none (streams of older daemons): from its start's seq. */
function fallbackCompactionId(seq: number): string {
  return `compaction-${seq}`;
}

export function compactionEventUpdates(event: CompactionEvent, features: ClientFeatures, memory: CompactionMemory): SessionUpdate[] {
  switch (event.type) {
    case "compaction_start": {
      const compactionId = event.compactionId ?? fallbackCompactionId(event.seq);
      memory.openId = compactionId;
      return features.compaction ? [{ sessionUpdate: "compaction_update", compactionId, status: "in_progress" }] : [];
    }
    case "compaction_update": {
      if (!features.compaction || event.reason === "prepare") return [];
      const { compactionId } = event;
      if (event.phase === "summarizing" && event.delta) return [{ sessionUpdate: "compaction_summary_chunk", compactionId, content: { type: "text", text: event.delta } }];
      if (event.phase === "chunk" && event.chunk && event.chunk.index > 1) return [{ sessionUpdate: "compaction_update", compactionId, status: "in_progress", summary: [] }];
      return [];
    }
    case "compaction_end": {
      const compactionId = event.compactionId ?? memory.openId ?? fallbackCompactionId(event.seq);
      memory.openId = undefined;
      return features.compaction ? endAsEntity(event, compactionId, features) : endAsNote(event, compactionId);
    }
  }
}

type EndEvent = Extract<EventLine, { type: "compaction_end" }>;

function fallbackReason(event: EndEvent): string | undefined {
  return (event.fallback ?? event.result?.fallback)?.reason;
}

function endAsEntity(event: EndEvent, compactionId: string, features: ClientFeatures): SessionUpdate[] {
  if (event.aborted) return [{ sessionUpdate: "compaction_update", compactionId, status: "cancelled" }];
  if (!event.result) return [{ sessionUpdate: "compaction_update", compactionId, status: "failed", error: event.error ?? "The compaction did not complete." }];
  const out: SessionUpdate[] = [{ sessionUpdate: "compaction_update", compactionId, status: "completed", summary: contentBlocks(event.result.summary) }];
  const why = fallbackReason(event);
  if (why !== undefined) out.push(noticeOrNote(features, "warning", "The summarizer failed; the compaction used a summary extracted from the conversation", why, `${compactionId}:note`));
  return out;
}

function endAsNote(event: EndEvent, compactionId: string): SessionUpdate[] {
  if (event.aborted) return [];
  const messageId = `${compactionId}:note`;
  if (!event.result) return [noteChunk(`Compaction failed: ${event.error ?? "it did not complete."}`, messageId)];
  let text = `Context compacted: ${tokens(event.result.tokensBefore)} → ${tokens(event.result.tokensAfter)} tokens.`;
  const why = fallbackReason(event);
  if (why !== undefined) text += ` The summarizer failed (${why}); a summary extracted from the conversation was used.`;
  if (event.willRetry) text += " Retrying the request.";
  return [noteChunk(text, messageId)];
}

/** A stored compaction, at its place in a replayed history. */
export function compactionEntryUpdates(entry: CompactionEntry, features: Pick<ClientFeatures, "compaction">): SessionUpdate[] {
  if (features.compaction) return [{ sessionUpdate: "compaction_update", compactionId: entry.id, status: "completed", summary: contentBlocks(entry.summary) }];
  const before = typeof entry.tokensBefore === "number" && Number.isFinite(entry.tokensBefore) ? ` ${tokens(entry.tokensBefore)} tokens` : "";
  return [noteChunk(`Context compacted:${before} → summary.`, entry.id)];
}
