// Asking a live session the probes of its case: each one aside (answered, never stored), scored
// as it comes back, the judge's graded; the first alone so the others read the provider's cache.
import type { LiveSession } from "../host/live/live-session.js";
import { askAside } from "../host/live/aside-question.js";
import type { ModelInfo, Provider } from "../llm/types.js";
import { dimensionScores, judgedScores, type JudgedScores, type ProbeRecord, type Scores } from "./case-scores.js";
import { JUDGE_SYSTEM_PROMPT, judgedMean, judgePrompt, parseJudgment, type Judgment } from "./judge.js";
import { deterministicProbes, judgeProbes, type Expected } from "./probes.js";
import { scoreAnswer } from "./score.js";
import { addUsageTo, emptyTally, tokensOf, type Tally } from "./tally.js";
import type { Truth } from "./truth.js";

/**
 * A probe's answer is a sentence or a list of paths, but a reasoning model spends its output
 * budget on thinking first (a 1k cap leaves some with no text at all): room for both; only what
 * is written is billed.
 */
export const PROBE_MAX_TOKENS = 8192;
const JUDGE_MAX_TOKENS = 2048;
/** An answer is kept and scored up to this many characters: a reply that streams on is not an answer. */
const MAX_ANSWER_CHARS = 32_000;
/** Probes of one session asked at once: they are independent requests over the same context. */
const PROBE_CONCURRENCY = 4;

export interface Judge {
  model: ModelInfo;
  provider: Provider;
}

/** What questioning needs from the run. */
export interface Asking {
  judge?: Judge;
  signal: AbortSignal;
  progress(step: string): void;
  /** tokens as they are spent, for the progress line */
  spent(tokens: number): void;
}

/** A context questioned: the compacted session, the floor or the ceiling. */
export interface Questioned {
  dimensions: Scores;
  judged?: JudgedScores;
  probes: ProbeRecord[];
  probeCost: Tally;
  judgeCost: Tally;
  /** the context's size when it was questioned */
  contextTokens: number;
}

/**
 * Runs `fn` over `items`, `limit` at a time, results in order; the first alone, before the rest:
 * the probes of a context share its whole prefix, and the first one's request writes it to the
 * provider's prompt cache, which the others then read (at a tenth of the price, where it caches)
 * instead of each writing it again.
 */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  if (items.length === 0) return out;
  out[0] = await fn(items[0]);
  let next = 1;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function judgeAnswer(judge: Judge, question: string, reference: string, answer: string, signal: AbortSignal, cost: Tally, spent: (tokens: number) => void): Promise<Judgment | { error: string }> {
  const request = {
    model: judge.model,
    systemPrompt: JUDGE_SYSTEM_PROMPT,
    messages: [{ role: "user" as const, content: judgePrompt(question, reference, answer), timestamp: Date.now() }],
    tools: [],
    maxTokens: Math.min(JUDGE_MAX_TOKENS, judge.model.maxOutputTokens),
  };
  const reply = await askAside(judge.provider, request, signal);
  addUsageTo(cost, reply.usage);
  spent(tokensOf(reply.usage));
  if (reply.error) return { error: `the judge failed: ${reply.error}` };
  return parseJudgment(reply.text);
}

/** Asks a live session every probe of the case (and the judge's, graded), and scores the answers. */
export async function question(o: Asking, session: LiveSession, truth: Truth, label: string): Promise<Questioned> {
  const probeCost = emptyTally();
  const judgeCost = emptyTally();
  const contextTokens = session.contextTokens();
  const asked = [...deterministicProbes(truth).map((p) => ({ ...p, reference: undefined as string | undefined })), ...(o.judge ? judgeProbes(truth) : []).map((p) => ({ ...p, expected: undefined as Expected | undefined }))];
  let done = 0;
  const records = await pool(asked, PROBE_CONCURRENCY, async (p): Promise<ProbeRecord> => {
    if (o.signal.aborted) throw o.signal.reason;
    const reply = await session.aside.ask(p.question, o.signal, PROBE_MAX_TOKENS);
    addUsageTo(probeCost, reply.usage);
    o.spent(tokensOf(reply.usage));
    o.progress(`${label}: probe ${++done}/${asked.length}`);
    const answer = reply.text.slice(0, MAX_ANSWER_CHARS);
    const base = { id: p.id, question: p.question, answer, ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}), ...(reply.error ? { error: reply.error } : {}) };
    if (p.expected) return { ...base, dimension: p.expected.dimension, expected: p.expected, ...scoreAnswer(answer, p.expected) };
    const reference = p.reference as string;
    const judgment = reply.error ? { error: reply.error } : await judgeAnswer(o.judge as Judge, p.question, reference, answer, o.signal, judgeCost, o.spent);
    if ("error" in judgment) return { ...base, dimension: "judged", expected: { reference }, score: null, error: judgment.error };
    return { ...base, dimension: "judged", expected: { reference }, score: judgedMean(judgment), judgment };
  });
  if (o.signal.aborted) throw o.signal.reason;
  const judged = judgedScores(records);
  return { dimensions: dimensionScores(records), ...(judged ? { judged } : {}), probes: records, probeCost, judgeCost, contextTokens };
}
