// What the terminal says about a compaction (`-p`/--mode text on stderr, `pith demo` in its
// transcript): one line when it starts, one with its result when it ends, as the web UI's marker
// reads ("compacted: 10,845 → 5,425 tokens"), or why it stopped. Other events: nothing.
import type { SessionEvent } from "../host/live/event-buffer.js";

const count = (n: unknown) => (typeof n === "number" ? Math.round(n).toLocaleString("en-US") : "?");

export function compactionLine(e: SessionEvent): string | undefined {
  if (e.type === "compaction_start") return `… compacting the context (${String(e.reason)}, ${count(e.tokensBefore)} tokens)`;
  if (e.type === "compaction_skipped") return `… compaction skipped: ${String(e.message)}`;
  if (e.type !== "compaction_end") return undefined;
  if (typeof e.error === "string") return `✗ compaction failed: ${e.error}`;
  if (e.aborted === true) return "✗ compaction aborted";
  const result = e.result as { tokensBefore?: unknown; tokensAfter?: unknown } | undefined;
  if (!result) return undefined; // cancelled by a client's hook: nothing was stored
  const fallback = (e.fallback as { reason?: unknown } | undefined)?.reason;
  return `✓ compacted: ${count(result.tokensBefore)} → ${count(result.tokensAfter)} tokens${typeof fallback === "string" ? ` (extractive summary: ${fallback})` : ""}`;
}
