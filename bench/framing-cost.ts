// What a compaction costs in each summary framing, over a long scripted session billed by the
// prompt-cache model in cache-billing.ts (reads 0.1x, writes 1.25x, prefix match up to a
// breakpoint, 5-minute life). The agent's requests and the summary requests are the bodies pith's
// Anthropic provider builds (buildParams): the transcript framing's serialized request, and the
// conversation framing's (the last agent request again, the reply, the ask). The summary is
// written right after a turn, as the summary written ahead of time is: the cache is warm.
import { AnthropicProvider } from "../src/llm/anthropic.js";
import type { ModelInfo, StreamRequest, ToolSpec } from "../src/llm/types.js";
import type { AgentMessage } from "../src/messages/types.js";
import { compactionSettings, conversationAsk, estimateMessageTokens, initialPrompt, prepareCompaction, serializeMessages, SUMMARIZER_SYSTEM_PROMPT, updatePrompt } from "../src/compaction/index.js";
import { addBills, CacheBilling, NO_BILL, type Bill } from "./cache-billing.js";

const MODEL: ModelInfo = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic", contextWindow: 200_000, maxOutputTokens: 32_000, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, thinking: "none" };
const SYSTEM = "You are a coding agent working in a repository. " + "Follow the project's conventions, run the tests, keep changes small. ".repeat(180);
const TOOLS: ToolSpec[] = ["read", "edit", "bash", "grep"].map((name) => ({ name, description: `The ${name} tool. `.repeat(40), inputSchema: { type: "object", properties: { path: { type: "string" } } } }));
const SUMMARY_TOKENS = 1500;
const STEP_MS = 20_000;

export interface FramingFigures {
  framing: "conversation" | "transcript";
  /** the session's shape: tool outputs above maxBlockChars (cut in a transcript) or below */
  session: string;
  /** the summary written this long after the turn (0: right after it, as ahead of time does) */
  pauseMs: number;
  compactions: number;
  perCompaction: Bill;
  firstAfter: Bill;
  turnsTotal: Bill;
}

function run(framing: "conversation" | "transcript", toolLines: number, turnCount: number, pauseMs = 0): FramingFigures {
  const provider = new AnthropicProvider({});
  const billing = new CacheBilling();
  const settings = compactionSettings();
  const threshold = MODEL.contextWindow - settings.reserveTokens;
  const signal = new AbortController().signal;
  const overhead = Math.ceil((SYSTEM.length + JSON.stringify(TOOLS).length) / 4);
  let clock = 0;
  let messages: AgentMessage[] = [];
  let ids: string[] = [];
  let previous: { summary: string } | undefined;
  let next = 0;
  let last: StreamRequest | null = null;
  let compactions = 0;
  let summaries = NO_BILL;
  let firsts = NO_BILL;
  let turns = NO_BILL;
  let firstPending = false;
  const push = (m: AgentMessage) => {
    messages.push(m);
    ids.push(`e${next++}`);
  };
  const ask = (): void => {
    last = { model: MODEL, systemPrompt: SYSTEM, messages: [...messages], tools: TOOLS, maxTokens: 32_000, signal };
    const bill = billing.bill(provider.buildParams(last), clock, 150);
    clock += STEP_MS;
    turns = addBills(turns, bill);
    if (firstPending) firsts = addBills(firsts, bill);
    firstPending = false;
  };
  for (let t = 0; t < turnCount; t++) {
    push({ role: "user", content: `step ${t}: look at module ${t % 50} and fix what the tests report`, timestamp: 0 });
    ask();
    const id = `toolu_${t}`;
    push({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: `src/mod${t % 50}.ts` } }], api: "anthropic-messages", provider: "anthropic", model: MODEL.id, usage: undefined as never, stopReason: "toolUse", timestamp: 0 } as AgentMessage);
    push({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: `// module ${t}\n` + `export function f${t}(x: number) { return x * ${t} + compute(x, ${t}); }\n`.repeat(toolLines) }], isError: false, timestamp: 0 } as AgentMessage);
    ask();
    push({ role: "assistant", content: [{ type: "text", text: `Fixed module ${t}: the tests pass.` }], api: "anthropic-messages", provider: "anthropic", model: MODEL.id, usage: undefined as never, stopReason: "stop", timestamp: 0 } as AgentMessage);
    const tokens = overhead + messages.reduce((s, m) => s + estimateMessageTokens(m), 0);
    if (tokens <= threshold * 0.9) continue;
    // right after the turn, while the cache is warm: the summary written ahead of time
    const prep = prepareCompaction({ messages, entryIds: ids, freshFrom: 0, previous, overheadTokens: overhead }, settings, "threshold");
    if (!prep.ok || !last) continue;
    const p = prep.preparation;
    let body;
    if (framing === "transcript") {
      const transcript = serializeMessages(p.historyMessages, { maxBlockChars: settings.maxBlockChars }).join("\n\n");
      const prompt = p.previousSummary ? updatePrompt(transcript, p.previousSummary) : initialPrompt(transcript);
      body = provider.buildParams({ model: MODEL, systemPrompt: SUMMARIZER_SYSTEM_PROMPT, messages: [{ role: "user", content: prompt, timestamp: 0 }], tools: [], maxTokens: 13_000, signal });
    } else {
      const sent: StreamRequest = last;
      const after = messages.slice(sent.messages.length);
      body = provider.buildParams({ ...sent, messages: [...sent.messages, ...after, { role: "user", content: conversationAsk(p, p.firstKeptIndex), timestamp: 0 }], cachePrefix: sent.messages.length });
    }
    clock += pauseMs;
    summaries = addBills(summaries, billing.bill(body, clock, SUMMARY_TOKENS));
    clock += STEP_MS;
    compactions++;
    const summary = `## Goal\nsummary ${compactions} ` + "notes ".repeat(SUMMARY_TOKENS);
    previous = { summary };
    messages = [{ role: "compactionSummary", summary, tokensBefore: p.tokensBefore, timestamp: 0 } as AgentMessage, ...p.keptMessages];
    ids = [`c${compactions}`, ...ids.slice(p.firstKeptIndex)];
    firstPending = true;
  }
  const per = (b: Bill, n: number): Bill => ({ input: b.input / n, cacheRead: b.cacheRead / n, cacheWrite: b.cacheWrite / n, output: b.output / n, cost: b.cost / n });
  return { framing, session: toolLines * 70 > compactionSettings().maxBlockChars ? `tool outputs ~${Math.round((toolLines * 70) / 100) / 10}k chars (cut to maxBlockChars in a transcript)` : `tool outputs ~${toolLines * 70} chars (whole in a transcript)`, pauseMs, compactions, perCompaction: per(summaries, Math.max(1, compactions)), firstAfter: per(firsts, Math.max(1, compactions)), turnsTotal: turns };
}

export interface FramingComparison {
  conversation: FramingFigures;
  transcript: FramingFigures;
  /** conversation / transcript, per compaction */
  ratio: number;
  firstAfterRatio: number;
}

function compare(toolLines: number, turnCount: number): FramingComparison {
  const conversation = run("conversation", toolLines, turnCount);
  const transcript = run("transcript", toolLines, turnCount);
  return { conversation, transcript, ratio: conversation.perCompaction.cost / transcript.perCompaction.cost, firstAfterRatio: conversation.firstAfter.cost / transcript.firstAfter.cost };
}

/** Both framings on two session shapes, and the conversation framing written after the cache went cold (6 minutes idle). */
export function framingCost(): { large: FramingComparison; small: FramingComparison; cold: FramingFigures } {
  return { large: compare(90, 260), small: compare(24, 800), cold: run("conversation", 90, 260, 6 * 60_000) };
}
