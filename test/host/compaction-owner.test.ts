// The compaction owner (src/host/compaction/session-compaction.ts) checks a summary written ahead of time
// when a compaction claims it, whatever made it stale: a change that forgot to discard it (here:
// the leaf moved behind the owner's back, with no discardPrepared call) still never gets it
// stored. And every compaction entry is stored the same way, the hook's with fromHook.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compactionSettings, type CompactionSettings } from "../../src/compaction/index.js";
import type { SessionEvent } from "../../src/host/live/event-buffer.js";
import type { BeforeCompactDecision } from "../../src/host/ports.js";
import { SessionCompaction } from "../../src/host/compaction/session-compaction.js";
import { SessionSettings } from "../../src/host/policy/session-settings.js";
import type { ModelInfo, Provider, StreamEvent } from "../../src/llm/types.js";
import { createLogger } from "../../src/log/logger.js";
import type { AssistantMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";
import type { CompactionEntry } from "../../src/session/types.js";
import { usage } from "../support/messages.js";
import { appendTurn } from "../support/sessions.js";
import { tempDir } from "../support/tmp.js";

/** threshold = 40000 - 16384 = 23616; prepareAt 0.8 of it = 18893 */
const MODEL: ModelInfo = { id: "m", provider: "fake", api: "anthropic", contextWindow: 40_000, maxOutputTokens: 4_000, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, thinking: "none" };

/** A provider whose every reply is the next summary text: "SUMMARY-1", "SUMMARY-2"... */
function summaries(): Provider & { calls: number } {
  const p = {
    name: "fake",
    calls: 0,
    async *stream(): AsyncIterable<StreamEvent> {
      const text = `SUMMARY-${++p.calls}`;
      await new Promise((r) => setImmediate(r));
      const message: AssistantMessage = { role: "assistant", content: [{ type: "text", text }], api: "anthropic", provider: "fake", model: "m", usage: usage(10, 10), stopReason: "stop", timestamp: Date.now() };
      yield { type: "text_delta", contentIndex: 0, delta: text, partial: message };
      yield { type: "done", message };
    },
  };
  return p;
}

function owner(t: Parameters<typeof tempDir>[0], hook: BeforeCompactDecision = { action: "default" }, settings: CompactionSettings = compactionSettings({ keepRecentTokens: 3000 })) {
  const file = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => file.close());
  const events: SessionEvent[] = [];
  const provider = summaries();
  const compaction = new SessionCompaction({
    sessionId: file.sessionId,
    file,
    stored: new SessionSettings(file),
    logger: createLogger("silent"),
    settings,
    beforeCompact: async () => hook,
    models: { current: () => MODEL, resolve: () => MODEL, providerFor: () => provider, overheadTokens: () => 0 },
    events: { emit: (type, fields) => void events.push({ type, ...fields } as unknown as SessionEvent) },
  });
  return { file, events, provider, compaction };
}

/** The phases of a compaction_update stream that are not progress (summarizing, chunk). */
const milestones = (events: SessionEvent[], id: string) =>
  events
    .filter((e) => e.type === "compaction_update" && (e as { compactionId?: string }).compactionId === id)
    .map((e) => (e as { phase?: string }).phase)
    .filter((phase) => phase !== "summarizing" && phase !== "chunk");

async function preparedReady(o: ReturnType<typeof owner>): Promise<string> {
  for (let i = 0; i < 5; i++) appendTurn(o.file, `request ${i}`);
  appendTurn(o.file, "past the soft threshold", 2, 2000, 20_000);
  await o.compaction.beforeModelCall(new AbortController().signal);
  const status = o.compaction.prepared();
  assert.ok(status, "a summary is being written ahead of time");
  while (o.compaction.prepared()?.status !== "ready") await new Promise((r) => setImmediate(r));
  return status.compactionId;
}

test("a prepared summary whose span left the active path is found stale when claimed, with no discard pushed, and never stored", async (t) => {
  const o = owner(t);
  const preparedId = await preparedReady(o);
  // a move in the tree that did not tell the owner: back one entry, so the summary's cut is still
  // on the path (its cut alone would serve) but the leaf it was written at is not
  const leaf = o.file.entry(o.file.leafId!)!;
  o.file.branch(leaf.parentId);
  assert.ok(o.file.isOnPath(o.compaction.prepared()!.firstKeptEntryId));
  appendTurn(o.file, "past the trigger", 2, 2000, 30_000);
  assert.equal(o.compaction.prepared()?.compactionId, preparedId, "still held: nothing discarded it");
  const callsBefore = o.provider.calls;

  const stored = await o.compaction.run("threshold", new AbortController().signal);
  assert.ok(stored);
  assert.deepEqual(milestones(o.events, preparedId), ["ready", "discarded"]);
  const start = o.events.find((e) => e.type === "compaction_start") as unknown as { compactionId: string; prepared?: boolean };
  assert.notEqual(start.compactionId, preparedId);
  assert.equal(start.prepared, undefined);
  assert.doesNotMatch(stored.summary, /^SUMMARY-1\b/, "not the stale one");
  assert.ok(o.provider.calls > callsBefore, "written at the trigger");
  assert.equal(o.compaction.prepared(), undefined);
});

test("a prepared summary still valid is claimed and stored with its cut; a hook's summary is stored by the same function, fromHook, the prepared one discarded", async (t) => {
  const served = owner(t);
  const preparedId = await preparedReady(served);
  appendTurn(served.file, "past the trigger", 2, 2000, 30_000);
  const callsBefore = served.provider.calls;
  const stored = await served.compaction.run("threshold", new AbortController().signal);
  assert.match(stored!.summary, /^SUMMARY-1\b/, "the one written ahead of time");
  assert.equal(served.provider.calls, callsBefore, "no summarizer request at the trigger");
  assert.deepEqual(milestones(served.events, preparedId), ["ready", "applying"]);

  const hooked = owner(t, { action: "replace", summary: "THE CLIENT'S SUMMARY", details: { mine: true } });
  const hookedPreparedId = await preparedReady(hooked);
  appendTurn(hooked.file, "past the trigger", 2, 2000, 30_000);
  const fromHook = await hooked.compaction.run("threshold", new AbortController().signal);
  assert.equal(fromHook!.fromHook, true);
  assert.deepEqual(milestones(hooked.events, hookedPreparedId), ["ready", "discarded", "applying"]);
  const entry = hooked.file.entries().find((e): e is CompactionEntry => e.type === "compaction")!;
  assert.deepEqual(
    { summary: entry.summary, firstKeptEntryId: entry.firstKeptEntryId, tokensBefore: entry.tokensBefore, details: entry.details, fromHook: entry.fromHook },
    { summary: "THE CLIENT'S SUMMARY", firstKeptEntryId: fromHook!.firstKeptEntryId, tokensBefore: fromHook!.tokensBefore, details: { mine: true, reason: "threshold", tokensAfter: fromHook!.tokensAfter }, fromHook: true },
  );
  assert.equal(hooked.compaction.prepared(), undefined);
});
