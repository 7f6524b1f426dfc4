// Where a compaction cuts: the first message kept verbatim. Pure.
import type { AgentMessage } from "../messages/types.js";

export interface CutPoint {
  /** index of the first kept message (== start: nothing before the cut) */
  firstKeptIndex: number;
  /** with a split turn, index of the message that opened the turn; else -1 */
  turnStartIndex: number;
  /** the cut falls inside a turn: [turnStartIndex, firstKeptIndex) is summarized on its own */
  isSplitTurn: boolean;
}

/** Messages that may start the kept part: never a tool result (it must follow its call). */
function mayStartKept(m: AgentMessage): boolean {
  return m.role === "user" || m.role === "assistant" || m.role === "bashExecution" || m.role === "custom" || m.role === "branchSummary";
}

/** Messages that open a turn (what a split turn's prefix starts with). */
function opensTurn(m: AgentMessage): boolean {
  return m.role === "user" || m.role === "bashExecution" || m.role === "custom" || m.role === "branchSummary";
}

/**
 * For each index, whether cutting there would separate a tool call from its result: a cut at
 * i splits every pair with call < i <= result. Results whose call is elsewhere (or nowhere)
 * cannot be split by any cut and are ignored.
 */
export function splitsToolPair(messages: readonly AgentMessage[]): boolean[] {
  const callIndex = new Map<string, number>();
  const depth = new Array<number>(messages.length + 1).fill(0);
  messages.forEach((m, i) => {
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content) if (b && b.type === "toolCall") callIndex.set(b.id, i);
    } else if (m.role === "toolResult") {
      const c = callIndex.get(m.toolCallId);
      if (c !== undefined && c < i) {
        depth[c + 1]++;
        depth[i + 1]--;
      }
    }
  });
  const out: boolean[] = [];
  let open = 0;
  for (let i = 0; i < messages.length; i++) {
    open += depth[i];
    out.push(open > 0);
  }
  return out;
}

/**
 * Walks back from the newest message summing `tokens` until `keepRecentTokens` is reached and
 * cuts at the nearest allowed message at or after that point (or, when none follows, the
 * nearest before it). Allowed: a user, assistant, bash, extension or branch-summary message
 * whose position splits no tool call from its result. Messages before `start` (the previous
 * summary) are never cut or summarized.
 */
export function findCutPoint(messages: readonly AgentMessage[], start: number, keepRecentTokens: number, tokens: readonly number[] | ((i: number) => number)): CutPoint {
  // estimates are needed only back to the cut, not for the whole span
  const tokenAt = typeof tokens === "function" ? tokens : (i: number) => tokens[i];
  const splits = splitsToolPair(messages);
  const allowed = (i: number) => i > start && mayStartKept(messages[i]) && !splits[i];
  let reached = -1;
  let sum = 0;
  for (let i = messages.length - 1; i >= start; i--) {
    sum += tokenAt(i);
    if (sum >= keepRecentTokens) {
      reached = i;
      break;
    }
  }
  if (reached < 0) return { firstKeptIndex: start, turnStartIndex: -1, isSplitTurn: false };
  let cut = -1;
  for (let i = reached; i < messages.length; i++) {
    if (allowed(i)) {
      cut = i;
      break;
    }
  }
  if (cut < 0) for (let i = reached - 1; i > start && cut < 0; i--) if (allowed(i)) cut = i;
  if (cut < 0) return { firstKeptIndex: start, turnStartIndex: -1, isSplitTurn: false };
  return turnOf(messages, start, cut);
}

/** The cut at a given index (chosen earlier, e.g. by a summary written ahead of time), or null if cutting there is not allowed. */
export function cutPointAt(messages: readonly AgentMessage[], start: number, firstKeptIndex: number): CutPoint | null {
  if (firstKeptIndex <= start || firstKeptIndex >= messages.length) return null;
  if (!mayStartKept(messages[firstKeptIndex]) || splitsToolPair(messages)[firstKeptIndex]) return null;
  return turnOf(messages, start, firstKeptIndex);
}

/** A cut at an assistant message splits its turn: the turn's start, if it lies in the span, opens a prefix. */
function turnOf(messages: readonly AgentMessage[], start: number, cut: number): CutPoint {
  if (opensTurn(messages[cut])) return { firstKeptIndex: cut, turnStartIndex: -1, isSplitTurn: false };
  for (let i = cut - 1; i >= start; i--) {
    if (opensTurn(messages[i])) return { firstKeptIndex: cut, turnStartIndex: i, isSplitTurn: true };
  }
  return { firstKeptIndex: cut, turnStartIndex: -1, isSplitTurn: false };
}
