// What a client's beforeCompact hook is sent about a compaction: the wire's preparation.
import type { CompactionPreparation } from "../../compaction/index.js";
import type { BeforeCompactRequest } from "../ports.js";

/**
 * The preparation as the wire defines it: the pieces a hook needs to write a summary, not pith's
 * working state (the kept messages, indexes, overhead), which would only add bytes to the request.
 */
export function wirePreparation(p: CompactionPreparation, instructions: string | undefined): BeforeCompactRequest["preparation"] {
  return {
    firstKeptEntryId: p.firstKeptEntryId,
    tokensBefore: p.tokensBefore,
    keptTokens: p.keptTokens,
    projectedTokensAfter: p.projectedTokensAfter,
    historyMessages: p.historyMessages,
    isSplitTurn: p.isSplitTurn,
    turnPrefixMessages: p.turnPrefixMessages,
    previousSummary: p.previousSummary,
    fileLists: p.fileLists,
    userMessages: p.userMessages,
    instructions,
  };
}

