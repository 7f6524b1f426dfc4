// Real token counts from a session's own usage reports: between two consecutive reliable
// assistant usages of the same model, the context grew by the messages in between plus the
// later reply. Used to measure token estimators against the truth.
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";
import { reliableUsage } from "../../src/compaction/estimate.js";

export interface UsageDelta {
  /** messages (previous usage, this usage]: what the growth consists of */
  messages: AgentMessage[];
  realTokens: number;
}

export function usageDeltas(messages: readonly AgentMessage[]): UsageDelta[] {
  const out: UsageDelta[] = [];
  let prev = -1;
  let prevTokens = 0;
  let prevModel = "";
  messages.forEach((m, i) => {
    const tokens = reliableUsage(m);
    if (tokens <= 0) return;
    const model = (m as AssistantMessage).model;
    const delta = tokens - prevTokens;
    // a model switch changes the tokenizer; a shrinking context means something was dropped
    if (prev >= 0 && model === prevModel && delta > 0) out.push({ messages: messages.slice(prev + 1, i + 1), realTokens: delta });
    prev = i;
    prevTokens = tokens;
    prevModel = model;
  });
  return out;
}

export interface EstimatorError {
  pairs: number;
  /** mean absolute percentage error */
  mape: number;
  /** median absolute percentage error */
  medianApe: number;
  /** sum of estimates / sum of real tokens */
  sumRatio: number;
}

export function estimatorError(deltas: readonly UsageDelta[], estimate: (m: AgentMessage) => number): EstimatorError {
  const errors: number[] = [];
  let est = 0;
  let real = 0;
  for (const d of deltas) {
    const e = d.messages.reduce((a, m) => a + estimate(m), 0);
    errors.push(Math.abs(e - d.realTokens) / d.realTokens);
    est += e;
    real += d.realTokens;
  }
  errors.sort((a, b) => a - b);
  return {
    pairs: deltas.length,
    mape: errors.reduce((a, b) => a + b, 0) / Math.max(1, errors.length),
    medianApe: errors[Math.floor(errors.length / 2)] ?? 0,
    sumRatio: real > 0 ? est / real : 0,
  };
}

/** Pi's estimate: characters / 4, rounded up, per message. */
export function charsOver4(m: AgentMessage): number {
  let chars = 0;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") chars = content.length;
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (b.type === "text") chars += b.text.length;
      else if (b.type === "thinking") chars += b.thinking.length;
      else if (b.type === "toolCall") chars += b.name.length + JSON.stringify(b.arguments).length;
      else if (b.type === "image") chars += 4800;
    }
  }
  if (m.role === "bashExecution") chars = m.command.length + m.output.length;
  if (m.role === "compactionSummary" || m.role === "branchSummary") chars = m.summary.length;
  return Math.ceil(chars / 4);
}
