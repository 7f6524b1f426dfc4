// One case under one configuration, through the session host as a session goes: a copy of the
// case's opening opened, the rest of its work replayed into it and compacted where a session would
// compact it (and at its end), then asked the probes in the compacted context (questioning.ts).
// The floor (a summary that keeps nothing, only the kept tail) and the ceiling (no compaction, when
// the case fits the model's window) are asked the same probes; they depend on the answering model
// only, so a comparison of summarizers or framings shares them.
import { join } from "node:path";
import { estimateMessageTokens } from "../compaction/estimate.js";
import { addCost, type SummaryCost } from "../compaction/cost.js";
import { ErrorCode } from "../host/host-error.js";
import type { LiveSession } from "../host/live/live-session.js";
import type { QuestionClient } from "../host/ports.js";
import type { SessionHost } from "../host/session-host.js";
import type { StoredMessage } from "../messages/types.js";
import type { EvalCase } from "./case-set.js";
import { appendEntry, copyCase } from "./case-session.js";
import { PROBE_MAX_TOKENS, question, type Asking, type Questioned } from "./questioning.js";
import { emptyTally, tokensOf, type Tally } from "./tally.js";

/** After a compaction that could not free the context, how much it grows before the next try (a session's minSavingsFraction). */
const MIN_GROWTH = 0.1;
/** A ceiling that scores below this overall means the case's probes cannot be answered even from everything: a bad case. */
export const BAD_CEILING = 0.5;
/** What the floor's summary says: it keeps nothing (the protocol wants a non-empty summary from a hook). */
const FLOOR_SUMMARY = "(No notes were kept of the earlier part of this session.)";

interface Compaction {
  /** past the threshold as the case was replayed, at its midpoint (two cycles), or at its end */
  reason: "threshold" | "cycle" | "end";
  tokensBefore: number;
  tokensAfter: number;
  fallback?: string;
}

export interface CaseResult extends Questioned {
  case: string;
  /** compactions with nothing before their cut (a single turn longer than the part kept), skipped as a session skips them */
  skippedCompactions: number;
  /** the model that answered, as provider/id */
  model: string;
  compactions: Compaction[];
  compactionCost: Tally;
}

export interface CaseRunOptions extends Asking {
  host: SessionHost;
  /** the model that answers (undefined: the settings' default) */
  model?: string;
  cycles: 1 | 2;
  /** where this run's copies of the case go */
  dir: string;
  /** the sessions' working directory */
  workspace: string;
}

async function open(o: CaseRunOptions, file: string): Promise<LiveSession> {
  const ref = { sessionFile: file, cwd: o.workspace };
  const session = await o.host.perform("openSession", ref, () => o.host.open(ref));
  const model = o.model;
  if (model) await o.host.perform("setModel", { sessionId: session.id, model }, (held) => session.setModel(held, model));
  return session;
}

async function closeQuietly(o: CaseRunOptions, session: LiveSession): Promise<void> {
  await o.host.perform("closeSession", { sessionId: session.id }, () => o.host.close(session.id)).catch(() => {});
}

/** One compaction through the operation layer, with what compaction_end says it cost. */
async function compactOnce(o: CaseRunOptions, session: LiveSession, cost: Tally, reason: Compaction["reason"]): Promise<Compaction> {
  let spent: SummaryCost | undefined;
  const listener = (event: { type: string; cost?: unknown }) => {
    if (event.type === "compaction_end" && event.cost) spent = event.cost as SummaryCost;
  };
  // the compaction holds the session's own signal: the eval's abort (Ctrl-C) is the session's abort
  const onAbort = () => void o.host.perform("abort", { sessionId: session.id }, () => session.abort()).catch(() => {});
  o.signal.addEventListener("abort", onAbort, { once: true });
  session.subscribe(listener);
  try {
    if (o.signal.aborted) throw o.signal.reason;
    const r = await o.host.perform("compact", { sessionId: session.id }, (held) => session.compact(held));
    addCost(cost, spent);
    cost.requests++;
    if (spent) o.spent(tokensOf(spent));
    return { reason, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter, ...(r.fallback ? { fallback: r.fallback.reason } : {}) };
  } finally {
    o.signal.removeEventListener("abort", onAbort);
    session.unsubscribe(listener);
  }
}

/** Whether a session compacts before its next model call here: not between a tool call and its result. */
function beforeModelCall(m: StoredMessage): boolean {
  return !(m.role === "assistant" && m.content.some((b) => b.type === "toolCall"));
}

/**
 * The configuration's own result. The case is replayed into the session entry by entry, and
 * compacted where a session would compact it: past the threshold (your window, your settings),
 * before a model call, when automatic compaction is on; at the case's midpoint too with two
 * cycles; and once more at its end, the compaction the probes question (unless one just happened
 * and nothing lies before the cut). Then the probes.
 */
export async function runCompacted(o: CaseRunOptions, c: EvalCase, tag: string): Promise<CaseResult> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.jsonl`), "opening");
  const session = await open(o, copy.file);
  try {
    const compactionCost = emptyTally();
    const compactions: Compaction[] = [];
    const state = session.getState();
    const threshold = state.threshold ?? Number.POSITIVE_INFINITY;
    const auto = state.autoCompactionEnabled;
    /** the context's size after compacting; a compaction with nothing before its cut is skipped, as a session skips it */
    const compactNow = async (reason: Compaction["reason"]): Promise<number> => {
      session.file.sync();
      o.progress(`compacting ${compactions.length + 1} (${reason}, ${session.contextTokens()} tokens)`);
      // as in a session that just ran: its last request is there for a summary framed as the conversation
      session.aside.recordLastRequest();
      try {
        compactions.push(await compactOnce(o, session, compactionCost, reason));
      } catch (err) {
        if ((err as { code?: unknown }).code !== ErrorCode.NothingToCompact) throw err;
        skipped++;
      }
      return session.contextTokens();
    };
    let skipped = 0;
    let tokens = session.contextTokens();
    // after a skip, tried again once the context grew by the share a session waits for (compaction-skips.ts)
    let retryAbove = threshold;
    for (const [i, entry] of copy.rest.entries()) {
      if (o.signal.aborted) throw o.signal.reason;
      const m = appendEntry(session.file, entry);
      if (!m) continue;
      tokens += estimateMessageTokens(m);
      if (!beforeModelCall(m)) continue;
      if (o.cycles === 2 && entry.id === c.truth.cycleBreak) tokens = await compactNow("cycle");
      else if (auto && tokens > retryAbove) {
        tokens = await compactNow("threshold");
        retryAbove = tokens > threshold ? tokens * (1 + MIN_GROWTH) : threshold;
      }
      if (i % 200 === 0) o.progress(`replaying the case (${Math.round((100 * i) / copy.rest.length)}%)`);
    }
    await compactNow("end");
    if (compactions.length === 0) throw new Error(`nothing to compact: the whole case (${tokens} tokens) fits in the part a compaction keeps verbatim`);
    const questioned = await question(o, session, c.truth, "compacted");
    const m = session.getState().model;
    return { case: c.name, model: `${m.provider}/${m.id}`, compactions, skippedCompactions: skipped, compactionCost, ...questioned };
  } finally {
    await closeQuietly(o, session);
  }
}

/** The floor: the same cut with a summary that keeps nothing (written by a beforeCompact hook, as a client's would be). */
export async function runFloor(o: CaseRunOptions, c: EvalCase, tag: string): Promise<Questioned> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.floor.jsonl`), "all");
  const session = await open(o, copy.file);
  const nothing: QuestionClient = { answers: (m) => m === "beforeCompact", ask: async () => ({ action: "replace", summary: FLOOR_SUMMARY }) };
  o.host.questions.join(session.id, nothing);
  try {
    o.progress("floor: compacting");
    await compactOnce(o, session, emptyTally(), "end");
    return await question(o, session, c.truth, "floor");
  } finally {
    o.host.questions.leave(session.id, nothing);
    await closeQuietly(o, session);
  }
}

/** The ceiling: no compaction, when the whole case and a probe's answer fit the model's window; else why not. */
export async function runCeiling(o: CaseRunOptions, c: EvalCase, tag: string): Promise<Questioned | { skipped: string }> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.ceiling.jsonl`), "all");
  const session = await open(o, copy.file);
  try {
    const { contextTokens, contextWindow } = session.usage();
    if (contextTokens + PROBE_MAX_TOKENS + 512 > contextWindow) return { skipped: `the case (${contextTokens} tokens) does not fit the model's window (${contextWindow})` };
    return await question(o, session, c.truth, "ceiling");
  } finally {
    await closeQuietly(o, session);
  }
}
