import assert from "node:assert/strict";
import { test } from "node:test";
import { NOTES_SCRIPT } from "../support/notes-script.js";
import { SCRIPTED_MODEL } from "../../src/llm/models.js";
import { ScriptedProvider, scriptSchema } from "../../src/llm/scripted.js";
import type { StreamEvent } from "../../src/llm/types.js";

async function play(p: ScriptedProvider, signal = new AbortController().signal): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of p.stream({ model: SCRIPTED_MODEL, systemPrompt: "", messages: [], tools: [], maxTokens: 100, signal })) out.push(ev);
  return out;
}

test("the same script streams the same events, chunk by chunk", async () => {
  const strip = (evs: StreamEvent[]) => JSON.stringify(evs.map((e) => ({ ...e, partial: undefined, message: e.type === "done" ? { ...e.message, timestamp: 0 } : undefined })));
  const a = await play(new ScriptedProvider(NOTES_SCRIPT));
  const b = await play(new ScriptedProvider(NOTES_SCRIPT));
  assert.equal(strip(a), strip(b));
  const done = a.at(-1)!;
  assert.equal(done.type, "done");
  assert.equal(done.type === "done" && done.message.stopReason, "toolUse");
  assert.equal(done.type === "done" && done.message.usage.input, 3200);
  assert.equal(a.filter((e) => e.type === "text_delta").length, Math.ceil("I'll read the notes first.".length / 16));
});

test("errors are raised as scripted, mid-stream ones after part of the text; a run-out script says so", async () => {
  const p = new ScriptedProvider({ turns: [{ text: "0123456789", chunkSize: 2, error: { errorClass: "overflow", message: "prompt is too long", afterChars: 4 } }] });
  const evs = await play(p);
  const last = evs.at(-1)!;
  assert.equal(last.type, "error");
  assert.equal(last.type === "error" && last.error.errorClass, "overflow");
  assert.equal(last.type === "error" && (last.message.content[0] as { text: string }).text, "0123");
  const after = (await play(p)).at(-1)!;
  assert.match(after.type === "done" ? (after.message.content[0] as { text: string }).text : "", /no more turns/);
});

test("a malformed script is refused with the reason", () => {
  assert.throws(() => new ScriptedProvider({ turns: [{ chunkSize: -1 }] } as never), /chunkSize/);
  assert.equal(scriptSchema.safeParse({ turns: "nope" }).success, false);
});
