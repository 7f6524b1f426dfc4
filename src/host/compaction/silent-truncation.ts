// Some endpoints cut a prompt that does not fit their window instead of refusing it (Ollama's
// OpenAI-compatible API, llama.cpp with context shift): no overflow error ever comes, the model
// answers a context it did not see, and compaction never fires because the usage it reports is
// small. The reply's reported input is the tell: pith's estimate errs by a few percent, so a
// report far below it means the endpoint dropped part of what was sent.
import { estimateMessageTokens } from "../../compaction/index.js";
import type { ModelInfo } from "../../llm/types.js";
import type { AgentMessage, AssistantMessage } from "../../messages/types.js";

/** Reported input below this fraction of the estimate is a cut prompt (the estimate errs by ~6%). */
const TRUNCATION_RATIO = 0.7;
/** Below this the estimate's relative error is large (images, tiny prompts): never judged. */
const MIN_ESTIMATE = 2000;

export interface Truncation {
  reportedTokens: number;
  estimatedTokens: number;
  /** the window the report implies: what the endpoint kept, plus the reply */
  impliedWindow: number;
  /** the reply that was written from the cut prompt */
  reply: AssistantMessage;
}

/** The newest reply, if its report says its prompt was cut. `overheadTokens`: system prompt and tools. */
export function detectTruncation(messages: readonly AgentMessage[], overheadTokens: number): Truncation | undefined {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role !== "assistant") i--;
  if (i < 0) return undefined;
  const reply = messages[i] as AssistantMessage;
  if (reply.stopReason === "error" || reply.stopReason === "aborted") return undefined;
  const u = reply.usage;
  const reportedTokens = u.input + u.cacheRead + u.cacheWrite;
  if (reportedTokens <= 0) return undefined;
  let estimatedTokens = overheadTokens;
  for (let j = 0; j < i; j++) estimatedTokens += estimateMessageTokens(messages[j]!);
  if (estimatedTokens < MIN_ESTIMATE || reportedTokens >= TRUNCATION_RATIO * estimatedTokens) return undefined;
  return { reportedTokens, estimatedTokens, impliedWindow: reportedTokens + u.output, reply };
}

/** Each reply judged once: a cut seen the first time, and only where a server may cut (not the vendors' APIs, which refuse). */
export class TruncationWatch {
  /** the newest reply already judged (its timestamp) */
  private judged = -1;

  /** `context`: the messages, read only where the model's server may cut */
  newCut(model: ModelInfo, context: () => readonly AgentMessage[], overheadTokens: number): Truncation | undefined {
    if (model.api !== "ollama" && model.api !== "openai-completions") return undefined;
    const cut = detectTruncation(context(), overheadTokens);
    if (!cut || cut.reply.timestamp === this.judged) return undefined;
    this.judged = cut.reply.timestamp;
    return cut;
  }
}
