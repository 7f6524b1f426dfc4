// getHistory: what the context no longer holds. The active branch as stored, up to the latest
// compaction's first kept entry, for a client that shows the whole branch; and the compactions on
// the branch with their details, so a marker drawn after a reload reads as it did live.
import type { AgentMessage, ResultOf } from "../../../protocol/index.js";
import { entryToMessage } from "../../session/context.js";
import type { SessionFile } from "../../session/session-file.js";
import type { CompactionEntry } from "../../session/types.js";

type History = ResultOf<"getHistory">;

export function sessionHistory(file: SessionFile, withMessages: boolean): History {
  // parsed without caching: the early part of a long branch must not stay in memory
  const path = file.branchPath(file.leafId, { keep: false });
  const compactions: History["compactions"] = [];
  let latest: CompactionEntry | undefined;
  for (const e of path) {
    if (e.type !== "compaction") continue;
    latest = e as CompactionEntry;
    compactions.push({
      entryId: latest.id,
      timestamp: Date.parse(latest.timestamp),
      tokensBefore: latest.tokensBefore,
      ...(isRecord(latest.details) ? { details: latest.details } : {}),
      ...(latest.fromHook ? { fromHook: true } : {}),
    });
  }
  const messages: AgentMessage[] = [];
  if (withMessages && latest) {
    for (const e of path) {
      if (e.id === latest.firstKeptEntryId || e === latest) break;
      if (e.type === "compaction") {
        const c = e as CompactionEntry;
        messages.push({ role: "compactionSummary", summary: c.summary, tokensBefore: c.tokensBefore, timestamp: Date.parse(c.timestamp) });
        continue;
      }
      const m = entryToMessage(e);
      if (m) messages.push(m);
    }
  }
  return { messages, compactions };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
