// The cheap first stage: old tool outputs are replaced by a short placeholder in what the model
// sees (the file keeps them whole). The newest `keepToolTokens` of tool output stay, and nothing
// is pruned unless at least `minPruneTokens` would be freed. Deterministic for a given context,
// so the same messages always give the same view. Pure.
import type { AgentMessage, ToolResultMessage } from "../messages/types.js";
import { estimateMessageTokens } from "./estimate.js";
import type { PruneSettings } from "./settings.js";

export interface PruneResult {
  messages: AgentMessage[];
  prunedCount: number;
  freedTokens: number;
}

function placeholder(m: ToolResultMessage, tokens: number): ToolResultMessage {
  return {
    ...m,
    content: [{ type: "text", text: `[older output of ${m.toolName} left out to save context (about ${tokens} tokens); run the tool again if it is needed]` }],
  };
}

export function pruneToolOutputs(messages: readonly AgentMessage[], settings: PruneSettings): PruneResult {
  const unchanged = { messages: messages.slice(), prunedCount: 0, freedTokens: 0 };
  if (!settings.enabled) return unchanged;
  let kept = 0;
  const candidates: { index: number; tokens: number }[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "toolResult") continue;
    const tokens = estimateMessageTokens(m);
    if (kept + tokens <= settings.keepToolTokens) kept += tokens;
    else {
      kept = settings.keepToolTokens; // everything older goes, even if it would fit
      candidates.push({ index: i, tokens });
    }
  }
  let freed = 0;
  const out = messages.slice();
  for (const c of candidates) {
    const replacement = placeholder(messages[c.index] as ToolResultMessage, c.tokens);
    const gain = c.tokens - estimateMessageTokens(replacement);
    if (gain <= 0) continue;
    out[c.index] = replacement;
    freed += gain;
  }
  if (freed < settings.minPruneTokens) return unchanged;
  return { messages: out, prunedCount: candidates.length, freedTokens: freed };
}
