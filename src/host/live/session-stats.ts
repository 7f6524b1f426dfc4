// getSessionStats: counts over every message entry in the file, on every branch (what the
// session cost, not what its current context holds).
import type { ResultOf } from "../../../protocol/index.js";
import type { SessionFile } from "../../session/session-file.js";
import { addCost, emptyCost, type SummaryCost } from "../../compaction/cost.js";

export function sessionStats(file: SessionFile): ResultOf<"getSessionStats"> {
  const counts: Record<string, number> = {};
  let toolCalls = 0;
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  let cost = 0;
  // what compactions cost is kept in each compaction entry's details (pith's own; Pi's have none)
  const compaction = { ...emptyCost(), count: 0 };
  for (const e of file.entries()) {
    if (e.type === "compaction") {
      const c = (e.details as { cost?: SummaryCost } | undefined)?.cost;
      if (c && typeof c.cost === "number") {
        addCost(compaction, c);
        compaction.count++;
      }
    }
    if (e.type !== "message") continue;
    const m = e.message;
    counts[m.role] = (counts[m.role] ?? 0) + 1;
    if (m.role === "assistant") {
      toolCalls += m.content.filter((b) => b.type === "toolCall").length;
      tokens.input += m.usage?.input ?? 0;
      tokens.output += m.usage?.output ?? 0;
      tokens.cacheRead += m.usage?.cacheRead ?? 0;
      tokens.cacheWrite += m.usage?.cacheWrite ?? 0;
      cost += m.usage?.cost?.total ?? 0;
    }
  }
  tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
  return { sessionId: file.sessionId, messages: counts, totalMessages: Object.values(counts).reduce((a, b) => a + b, 0), toolCalls, tokens, cost, ...(compaction.count > 0 ? { compaction } : {}) };
}
