// The cheap first stage: old tool outputs are replaced by a short placeholder in what the model
// sees (the file keeps them whole). The newest `keepToolTokens` of tool output stay, and nothing
// is pruned unless at least `minPruneTokens` would be freed; then every output older than the
// kept ones goes at once. Pruning changes the conversation's prefix, so each prune costs one
// prompt-cache write of everything after the first output it replaces: large, rare batches
// (Anthropic's `clear_at_least`) pay that once per `minPruneTokens` saved instead of every turn.
// Deterministic for a given context, so the same messages always give the same view. Pure:
// the host stores the plan as `context_edit` entries (src/host/compaction/tool-output-prune.ts).
import type { AgentMessage, ToolResultMessage } from "../messages/types.js";
import { estimateMessageTokens } from "./estimate.js";
import type { PruneSettings } from "./settings.js";

/** One tool output to replace: the message's index in the context and the placeholder text. */
interface PruneEdit {
  index: number;
  toolName: string;
  /** the output's estimated size, in tokens */
  tokens: number;
  text: string;
}

export interface PrunePlan {
  /** oldest first; empty when pruning is off or would free less than minPruneTokens */
  edits: PruneEdit[];
  freedTokens: number;
}

export interface PruneResult {
  messages: AgentMessage[];
  prunedCount: number;
  freedTokens: number;
}

/** How to get an output back, said per tool so the model knows what to run. */
function howToGetBack(toolName: string): string {
  if (toolName === "read") return "read the file again if it is needed";
  if (toolName === "bash") return "run the command again if it is needed";
  return `call ${toolName} again if it is needed`;
}

/** The placeholder that takes a left-out output's place: what it was, its size, how to get it back. */
export function prunePlaceholder(toolName: string, tokens: number): string {
  return `[older output of ${toolName} left out to save context (about ${tokens} tokens); ${howToGetBack(toolName)}]`;
}

function placeholder(m: ToolResultMessage, text: string): ToolResultMessage {
  return { ...m, content: [{ type: "text", text }] };
}

/** How long a provider keeps a cached prompt prefix after its last use (Anthropic's default). */
export const PROMPT_CACHE_TTL_MS = 5 * 60_000;

export interface PruneTiming {
  /**
   * The provider's cache of this context has expired (no request for PROMPT_CACHE_TTL_MS): the
   * next request writes its whole prompt anyway, so a prune then breaks nothing and any amount
   * worth a placeholder goes (minPruneTokens does not apply).
   */
  cacheCold?: boolean;
}

/** Which tool outputs to replace now, if any. */
export function planPrune(messages: readonly AgentMessage[], settings: PruneSettings, timing: PruneTiming = {}): PrunePlan {
  const none: PrunePlan = { edits: [], freedTokens: 0 };
  if (!settings.enabled) return none;
  // outputs after the last reply are ones the model has not seen yet: never left out
  let unseenFrom = messages.length;
  while (unseenFrom > 0 && messages[unseenFrom - 1].role !== "assistant") unseenFrom--;
  let kept = 0;
  const candidates: { index: number; tokens: number }[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "toolResult") continue;
    const tokens = estimateMessageTokens(m);
    if (kept + tokens <= settings.keepToolTokens || i >= unseenFrom) kept = Math.min(settings.keepToolTokens, kept + tokens);
    else {
      kept = settings.keepToolTokens; // everything older goes, even if it would fit
      candidates.push({ index: i, tokens });
    }
  }
  let freed = 0;
  const edits: PruneEdit[] = [];
  for (const c of candidates.reverse()) {
    const m = messages[c.index] as ToolResultMessage;
    const text = prunePlaceholder(m.toolName, c.tokens);
    // an output already left out (its placeholder) or one not much bigger than a placeholder is
    // not worth a cache break: without this, a placeholder would be replaced by one saying a
    // slightly different size each time, moving the prefix for a token or two
    const placeholderTokens = estimateMessageTokens(placeholder(m, text));
    const gain = c.tokens - placeholderTokens;
    if (gain < placeholderTokens) continue;
    edits.push({ index: c.index, toolName: m.toolName, tokens: c.tokens, text });
    freed += gain;
  }
  if (freed < (timing.cacheCold ? 1 : settings.minPruneTokens)) return none;
  return { edits, freedTokens: freed };
}

/** The messages as a plan leaves them (the input is not changed). */
export function pruneToolOutputs(messages: readonly AgentMessage[], settings: PruneSettings): PruneResult {
  const plan = planPrune(messages, settings);
  const out = messages.slice();
  for (const e of plan.edits) out[e.index] = placeholder(messages[e.index] as ToolResultMessage, e.text);
  return { messages: out, prunedCount: plan.edits.length, freedTokens: plan.freedTokens };
}
