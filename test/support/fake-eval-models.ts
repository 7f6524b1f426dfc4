// Fake models for the tests of `pith eval`, behind a fake OpenAI-compatible server on 127.0.0.1
// (fake-openai.ts: real SSE, usage when asked). pith reaches them as provider "fake" from
// settings.json (evalSettings), so the eval runs through pith's own provider code:
//
//   const models = await startFakeEvalModels([truth]);
//   writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
//   ... pith eval --summarizer fake/keeper ... / fake/dropper ... --judge fake/judge
//   models.counts  // {summaries, probes, judgments} answered so far
//   await models.close();
//
// What each model does (the request's kind is read by fake-eval-request.ts):
// - summary requests (transcript or conversation framing): `keeper` writes notes that keep every
//   needle of every truth the given text holds (facts, paths, decisions, next tasks, the judge
//   references' sentences); `dropper` plausible notes that name none; `judge` just "ok";
// - probes: every model answers from the context it was sent, never from the truth alone
//   (fake-eval-answers.ts), so the score follows what compaction kept;
// - grading requests: one JSON object, each dimension 5 × the share of the reference's words in
//   the answer (only `judge` is meant to be asked, any model answers so);
// - anything else: "ok".
import type { Settings } from "../../protocol/settings.js";
import type { Truth } from "../../src/eval/truth.js";
import { DROPPED_SUMMARY, judgeGrade, keeperSummary, probeAnswer } from "./fake-eval-answers.js";
import { readEvalRequest } from "./fake-eval-request.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type ReplyScenario } from "./fake-openai.js";

const FAKE_PROVIDER = "fake";
const FAKE_EVAL_MODELS = ["keeper", "dropper", "judge"] as const;

interface FakeEvalCounts {
  summaries: number;
  probes: number;
  judgments: number;
}

export interface FakeEvalModels {
  /** the provider's baseUrl (url + "/v1") */
  readonly baseURL: string;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** every request the server got, body parsed (fake-openai.ts's RecordedRequest) */
  readonly requests: FakeOpenAI["requests"];
  /** requests answered so far, by kind (live) */
  readonly counts: FakeEvalCounts;
  /** the server itself: enqueue() an error or a reply for the next request, setContextLimit(), ... (queued scenarios come first and are not counted) */
  readonly server: FakeOpenAI;
  close(): Promise<void>;
}

/** A reply in a few chunks, as a real server streams it. */
function streamed(text: string): ReplyScenario {
  return textReply(text, { chunkSize: Math.max(8, Math.ceil(text.length / 4)) });
}

export async function startFakeEvalModels(truths: Truth[]): Promise<FakeEvalModels> {
  const server = await startFakeOpenAI();
  const counts: FakeEvalCounts = { summaries: 0, probes: 0, judgments: 0 };
  // pith's discovery (GET /v1/models) then lists these, not the fake's own "fake-model"
  server.setModels(FAKE_EVAL_MODELS.map((id) => ({ id })));
  server.setResponder((body) => {
    const req = readEvalRequest(body);
    switch (req.kind) {
      case "summary":
        counts.summaries++;
        return streamed(req.model === "dropper" ? DROPPED_SUMMARY : req.model === "judge" ? "ok" : keeperSummary(truths, req.given));
      case "probe":
        counts.probes++;
        return streamed(probeAnswer(truths, req.probe, req.context));
      case "judge":
        counts.judgments++;
        return streamed(judgeGrade(req.reference, req.answer));
      case "other":
        return undefined;
    }
  });
  return { baseURL: server.baseURL, url: server.url, requests: server.requests, counts, server, close: () => server.close() };
}

/**
 * settings.json for a PITH_HOME whose models are these fakes: `fake/keeper`, `fake/dropper`,
 * `fake/judge`, each with a window no case overflows, priced so costs are not zero. Spread it and
 * add `model` (and `compaction`) as a test needs.
 */
export function evalSettings(baseURL: string) {
  return {
    providers: { [FAKE_PROVIDER]: { api: "openai-completions" as const, baseUrl: baseURL } },
    models: FAKE_EVAL_MODELS.map((id) => ({
      id,
      provider: FAKE_PROVIDER,
      contextWindow: 1_000_000,
      maxOutputTokens: 16_000,
      pricing: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 },
      thinking: "none" as const,
    })),
  } satisfies Settings;
}
