// Between a session file and the pure compaction functions: what to read for a compaction and
// how its result is stored. Kept apart so the decisions above stay free of I/O.
import type { SessionFile } from "../session/session-file.js";
import type { CompactionEntry, SessionEntry } from "../session/types.js";
import type { CompactionResult } from "./compact.js";
import type { CompactionInput } from "./prepare.js";

/** The active context and the latest compaction on its path. */
export function compactionInputOf(session: SessionFile): CompactionInput {
  const ctx = session.buildContext();
  let previous: CompactionInput["previous"];
  if (ctx.messages.length > 0 && ctx.messages[0].role === "compactionSummary") {
    const entry = session.entry(ctx.entryIds[0]) as CompactionEntry | undefined;
    if (entry) previous = { summary: entry.summary, details: entry.details, fromHook: entry.fromHook };
  }
  return { messages: ctx.messages, entryIds: ctx.entryIds, freshFrom: ctx.freshFrom, previous };
}

/** Stores a compaction (fromHook: a client's hook wrote the summary; synced to disk before this returns, like every compaction entry). */
export function appendCompaction(session: SessionFile, result: Pick<CompactionResult, "summary" | "firstKeptEntryId" | "tokensBefore"> & { details: CompactionEntry["details"] }, fromHook = false): SessionEntry {
  return session.append({
    type: "compaction",
    summary: result.summary,
    firstKeptEntryId: result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    details: result.details,
    ...(fromHook ? { fromHook: true } : {}),
  });
}
