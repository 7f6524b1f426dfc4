// The fake models `pith eval`'s tests run against, driven through pith's real Chat Completions
// provider with requests built by pith's own prompt code: a keeper's notes keep the planted
// needles and a dropper's do not, probes are answered from the context alone, the judge grades.
import assert from "node:assert/strict";
import { test } from "node:test";
import { settingsSchema } from "../../src/host/policy/settings.js";
import { conversationAsk } from "../../src/compaction/conversation-prompt.js";
import type { CompactionPreparation } from "../../src/compaction/prepare.js";
import { initialPrompt, SUMMARIZER_SYSTEM_PROMPT, updatePrompt } from "../../src/compaction/prompts.js";
import { Truth } from "../../src/eval/truth.js";
import { OpenAICompletionsProvider } from "../../src/llm/openai-completions.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { evalSettings, startFakeEvalModels } from "../support/fake-eval-models.js";
import { JUDGE_PREFIX, PROBE_PREFIX } from "../support/fake-eval-request.js";
import { assistant, call, result, user } from "../support/messages.js";
import { collect, deltas, testModel } from "../support/stream-collect.js";

const LEDGER: Truth = Truth.parse({
  version: 1,
  name: "ledger",
  description: "a payments ledger: reconcile batches",
  shape: "short",
  thinking: false,
  cycleBreak: "e40",
  facts: [
    { id: "port", question: "Which port does the payments mock listen on?", answer: "48213", kind: "value" },
    { id: "fn", question: "Which function reconciles a batch?", answer: "reconcileLedgerBatch", kind: "name" },
  ],
  artifacts: { read: ["src/ledger/batch.ts"], modified: ["src/ledger/reconcile.ts"], created: ["test/ledger/drift.test.ts"], deleted: ["src/ledger/legacy.ts"] },
  openTasks: [{ task: "Add the retry-after header to the rate limiter.", keywords: ["rate limiter", "retry-after"] }],
  decisions: [{ id: "lock", question: "Which approach do we use for concurrent batches?", chosen: "optimistic locking", rejected: ["advisory locks"] }],
  judge: [{ question: "What was the last failure and its cause?", reference: "The drift test failed with ERR_LEDGER_DRIFT because reconciliation skipped refunded transactions." }],
});

// a second case asking the same question, with another answer: the context decides which
const ORDERS: Truth = Truth.parse({
  ...LEDGER,
  name: "orders",
  facts: [{ id: "port", question: "Which port does the payments mock listen on?", answer: "39117", kind: "value" }],
  artifacts: { read: ["src/orders/pagination.ts"], modified: [], created: [], deleted: [] },
  openTasks: [{ task: "Paginate the order export.", keywords: ["order export"] }],
  decisions: [],
  judge: [],
});

const TRANSCRIPT = [
  "[user]\nThe payments mock listens on port 48213. Concurrent batches: try advisory locks first.",
  '[assistant calls tool read] {"path":"src/ledger/batch.ts"}',
  "[tool read returned]\nexport function reconcileLedgerBatch() {}",
  '[assistant calls tool edit] {"path":"src/ledger/reconcile.ts","oldText":"a","newText":"b"}',
  '[assistant calls tool write] {"path":"test/ledger/drift.test.ts","content":"..."}',
  "[tool bash failed]\nERR_LEDGER_DRIFT: 3 rows; the reconciliation skipped refunded transactions in the drift test",
  "[user]\nAdvisory locks deadlock: use optimistic locking. Then the rate limiter needs retry-after.",
].join("\n\n");

async function stage(t: { after(fn: () => unknown): void }) {
  const models = await startFakeEvalModels([ORDERS, LEDGER]);
  t.after(() => models.close());
  const provider = new OpenAICompletionsProvider({ name: "fake", apiKey: "unused", baseURL: models.baseURL, idleTimeoutMs: 2000 });
  const ask = async (model: string, messages: AgentMessage[], systemPrompt = "You are a coding agent.") => {
    const { final, events, error } = await collect(provider, { messages, systemPrompt }, testModel({ id: model, provider: "fake" }));
    assert.equal(error, undefined, JSON.stringify(error));
    return { text: final.content.map((b) => (b.type === "text" ? b.text : "")).join(""), events, usage: final.usage };
  };
  const summarize = async (model: string, prompt: string) => (await ask(model, [user(prompt)], SUMMARIZER_SYSTEM_PROMPT)).text;
  const probe = async (context: AgentMessage[], question: string) => (await ask("keeper", [...context, user(`${PROBE_PREFIX}\n\n${question}`)])).text;
  return { models, ask, summarize, probe };
}

const notesAbout = (text: string): AgentMessage[] => [user(`The conversation so far, in notes:\n${text}`), assistant("Understood.")];

test("transcript framing: the keeper's notes keep every needle the transcript (and the existing notes) hold, the dropper's none", async (t) => {
  const { models, summarize } = await stage(t);
  const kept = await summarize("keeper", initialPrompt(TRANSCRIPT));
  for (const needle of ["48213", "reconcileLedgerBatch", "src/ledger/batch.ts", "src/ledger/reconcile.ts", "test/ledger/drift.test.ts", "optimistic locking", "retry-after header", "ERR_LEDGER_DRIFT"]) {
    assert.ok(kept.includes(needle), `${needle} in:\n${kept}`);
  }
  assert.match(kept, /### Read\n- src\/ledger\/batch\.ts/);
  assert.match(kept, /### Created\n- test\/ledger\/drift\.test\.ts/);
  assert.ok(!kept.includes("src/ledger/legacy.ts") && !kept.includes("39117") && !kept.includes("order export"), "nothing the transcript does not hold");
  assert.ok(!kept.includes("Constraints & Preferences"), "the prompt's own format is not taken for the transcript");

  const dropped = await summarize("dropper", initialPrompt(TRANSCRIPT));
  assert.match(dropped, /^## Goal/);
  for (const needle of ["48213", "reconcileLedgerBatch", "src/ledger", "optimistic locking", "retry-after"]) assert.ok(!dropped.includes(needle), needle);

  // the second compaction: what only the existing notes hold is kept too
  const again = await summarize("keeper", updatePrompt('[assistant calls tool bash] {"command":"rm src/ledger/legacy.ts"}', kept));
  for (const needle of ["48213", "optimistic locking", "src/ledger/legacy.ts"]) assert.ok(again.includes(needle), needle);
  assert.equal(await summarize("judge", initialPrompt(TRANSCRIPT)), "ok");
  assert.deepEqual(models.counts, { summaries: 4, probes: 0, judgments: 0 });
});

test("conversation framing: the ask after the conversation is recognised and the conversation is summarized", async (t) => {
  const { ask } = await stage(t);
  const conversation = [user("The payments mock listens on port 48213."), assistant("", [call("c1", "read", { path: "src/ledger/batch.ts" })]), result("c1", "read", "ok")];
  const prep = { keptMessages: [conversation[2]!], isSplitTurn: false, turnPrefixMessages: [] } as unknown as CompactionPreparation;
  const messages = [...conversation, user(conversationAsk(prep, 2))];
  const { text } = await ask("keeper", messages);
  assert.ok(text.includes("48213") && text.includes("src/ledger/batch.ts"), text);
  assert.ok(!(await ask("dropper", messages)).text.includes("48213"));
});

test("probes are answered from the context: a fact only when it is there, and the case the context is about", async (t) => {
  const { models, probe } = await stage(t);
  const question = "Which port does the payments mock listen on? Give the exact value or wording.";
  assert.equal(await probe(notesAbout(TRANSCRIPT), question), "48213");
  assert.equal(await probe(notesAbout("Several steps were done."), question), "I do not know.");
  assert.equal(await probe(notesAbout("src/orders/pagination.ts was read; the mock is on 39117"), question), "39117", "the orders case's answer");
  // the probe merged into a user message that ends the kept part (two user messages become one)
  assert.equal(await probe([user(`notes: ${TRANSCRIPT}`)], question), "48213");
  assert.equal(models.counts.probes, 4);
});

test("a decision probe names the chosen approach when the context holds it, else the rejected one", async (t) => {
  const { probe } = await stage(t);
  const question = "Which approach do we use for concurrent batches? Answer in one sentence naming the approach.";
  assert.equal(await probe(notesAbout(TRANSCRIPT), question), "We use optimistic locking.");
  assert.equal(await probe(notesAbout("port 48213, src/ledger/batch.ts"), question), "We use advisory locks.");
});

test("the artifact trail, the next task and a judge question from the context", async (t) => {
  const { probe } = await stage(t);
  const files = await probe(notesAbout(TRANSCRIPT), "List every file of the project this session has read, modified, created or deleted, one path per line, relative to the project root, under the headings Read:, Modified:, Created:, Deleted:.");
  assert.equal(files, "Read:\nsrc/ledger/batch.ts\n\nModified:\nsrc/ledger/reconcile.ts\n\nCreated:\ntest/ledger/drift.test.ts\n\nDeleted:\n");
  const next = "What is the next task to do in this session? Answer in one sentence.";
  assert.equal(await probe(notesAbout(TRANSCRIPT), next), "Next: Add the retry-after header to the rate limiter.");
  assert.equal(await probe(notesAbout("src/ledger/batch.ts"), next), "I am not sure what is next.");
  const failure = "What was the last failure and its cause?";
  assert.equal(await probe(notesAbout(TRANSCRIPT), failure), LEDGER.judge[0]!.reference);
  assert.equal(await probe(notesAbout("Several steps were done."), failure), "I do not remember.");
});

test("the judge's grade parses, scores a good answer above a bad one; replies stream in chunks with usage", async (t) => {
  const { models, ask } = await stage(t);
  const grade = async (answer: string) => {
    const prompt = `<question>${LEDGER.judge[0]!.question}</question>\n<reference>${LEDGER.judge[0]!.reference}</reference>\n<answer>${answer}</answer>`;
    const { text, events, usage } = await ask("judge", [user(prompt)], `${JUDGE_PREFIX}. Reply with one JSON object.`);
    assert.ok(deltas(events, "text_delta").length >= 3, "streamed in a few chunks");
    assert.ok(usage.input > 0 && usage.output > 0, "usage reported");
    return JSON.parse(text) as Record<string, number | string>;
  };
  const good = await grade(LEDGER.judge[0]!.reference);
  const bad = await grade("I do not remember.");
  const partial = await grade("The drift test failed with ERR_LEDGER_DRIFT.");
  for (const key of ["accuracy", "contextAwareness", "artifactTrail", "completeness", "continuity", "instructionFollowing"]) {
    assert.equal(good[key], 5, key);
    assert.equal(bad[key], 0, key);
    assert.ok((partial[key] as number) > 0 && (partial[key] as number) < 5, `${key}: ${partial[key]}`);
  }
  assert.equal(typeof good.reason, "string");
  assert.equal(models.counts.judgments, 3);
  assert.ok(models.requests.every((r) => r.body.model === "judge"));
});

test("evalSettings is a valid settings file naming the three models on provider fake", () => {
  const settings = settingsSchema.parse(evalSettings("http://127.0.0.1:1/v1"));
  assert.deepEqual(settings.models?.map((m) => `${m.provider}/${m.id}`), ["fake/keeper", "fake/dropper", "fake/judge"]);
  assert.equal(settings.providers?.fake?.api, "openai-completions");
});
