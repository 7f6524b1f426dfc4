// buildContext's message list is built on first read (src/session/lazy-context.ts): the context
// is the eager one (every entry of the path parsed, then buildSessionContext) on every shape, the
// model and thinking level alone cost O(1) parses, a damaged line or a context_edit stays exact,
// and a context not read before close is built by close (it reads after close as before).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SHAPES, writeShape } from "../../bench/shapes.js";
import { collectGarbage } from "../../bench/util.js";
import { buildSessionContext, type SessionContext } from "../../src/session/context.js";
import { SessionFile } from "../../src/session/index.js";
import { assistant, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

/** The context as it was built before: every entry of the path parsed (in another handle), then buildSessionContext. */
function eagerContext(file: string): SessionContext {
  const s = SessionFile.open(file, { readOnly: true });
  try {
    return buildSessionContext(s.branchPath(undefined, { keep: false }));
  } finally {
    s.close();
  }
}

/** JSON.parse calls and the characters they parsed while `fn` ran. */
function countParses(fn: () => void): { calls: number; chars: number } {
  const original = JSON.parse;
  const counted = { calls: 0, chars: 0 };
  JSON.parse = ((text: string, reviver?: never) => {
    counted.calls++;
    counted.chars += text.length;
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    fn();
  } finally {
    JSON.parse = original;
  }
  return counted;
}

const isLazy = (ctx: SessionContext) => typeof Object.getOwnPropertyDescriptor(ctx, "messages")?.get === "function";

/** A session file of user / assistant turns with model and thinking changes between them, reopened (nothing parsed). */
function settersSession(dir: string, name: string, tail: "assistant" | "model_change"): string {
  const s = SessionFile.create({ cwd: dir, sessionsDir: join(dir, name) });
  s.appendThinkingLevelChange("low");
  for (let i = 0; i < 30; i++) {
    s.appendMessage(user(`question ${i} ${"x".repeat(200)}`));
    s.appendMessage({ ...assistant(`answer ${i} ${"y".repeat(200)}`), model: `model-${i}` });
    if (i === 10) s.appendModelChange("openai", "gpt-early");
    if (i === 20) s.appendThinkingLevelChange("high");
  }
  if (tail === "model_change") s.appendModelChange("ollama", "qwen-late");
  s.appendMessage(user("last question"));
  const file = s.file;
  s.close();
  return file;
}

test("every shape: the lazy context is the eager one (deepStrictEqual, spread, JSON text)", (t) => {
  const dir = tempDir(t);
  for (const shape of SHAPES) {
    for (const seed of [1, 2]) {
      const file = join(dir, `${shape}-${seed}.jsonl`);
      writeShape(file, shape, 250_000, seed);
      const expected = eagerContext(file);
      for (const read of ["deep", "spread", "json"] as const) {
        const s = SessionFile.open(file, { readOnly: true });
        try {
          const ctx = s.buildContext();
          if (shape === "never-compacted") assert.ok(isLazy(ctx), `${shape} ${seed}: the messages are not built yet`);
          if (read === "deep") assert.deepStrictEqual(ctx, expected, `${shape} ${seed}`);
          else if (read === "spread") assert.deepStrictEqual({ ...ctx }, expected, `${shape} ${seed}: spread`);
          else assert.equal(JSON.stringify(ctx), JSON.stringify(expected), `${shape} ${seed}: JSON`);
          assert.ok(!isLazy(ctx), "built once read: plain data properties from then on");
          assert.deepStrictEqual(Object.keys(ctx), Object.keys(expected), "the same keys in the same order");
        } finally {
          s.close();
        }
      }
    }
  }
});

test("a session never compacted: the model and thinking level cost O(1) parses, the messages then parse the path", (t) => {
  const dir = tempDir(t);
  const counts: { calls: number; chars: number }[] = [];
  for (const size of [200_000, 400_000]) {
    const file = join(dir, `nc-${size}.jsonl`);
    writeShape(file, "never-compacted", size, 3);
    const expected = eagerContext(file);
    const s = SessionFile.open(file, { readOnly: true });
    try {
      let ctx: SessionContext | undefined;
      const settings = countParses(() => {
        ctx = s.buildContext();
        assert.deepStrictEqual(ctx.model, expected.model);
        assert.equal(ctx.thinkingLevel, expected.thinkingLevel);
      });
      counts.push(settings);
      assert.ok(settings.calls <= 2, `${settings.calls} JSON.parse calls for the model and thinking level`);
      assert.ok(settings.chars < 20_000, `${settings.chars} characters parsed for the model and thinking level`);
      const messages = countParses(() => assert.equal(ctx!.messages.length, expected.messages.length));
      assert.ok(messages.chars > size / 2, `reading the messages parses the path (${messages.chars} characters of ${size})`);
      const again = countParses(() => assert.deepStrictEqual(ctx, expected));
      assert.equal(again.calls, 0, "built once: entryIds and freshFrom came with the messages");
    } finally {
      s.close();
    }
  }
  assert.ok(counts[1].calls <= counts[0].calls + 1, `parses for twice the session: ${counts.map((c) => c.calls).join(" -> ")}`);
});

test("the model and thinking level follow buildSessionContext's rule: the last setter of each wins", (t) => {
  const dir = tempDir(t);
  for (const tail of ["assistant", "model_change"] as const) {
    const file = settersSession(dir, tail, tail);
    const s = SessionFile.open(file, { readOnly: true });
    try {
      const ctx = s.buildContext();
      assert.ok(isLazy(ctx));
      assert.deepStrictEqual(ctx.model, tail === "assistant" ? { provider: "anthropic", modelId: "model-29" } : { provider: "ollama", modelId: "qwen-late" });
      assert.equal(ctx.thinkingLevel, "high");
      assert.deepStrictEqual(ctx, eagerContext(file));
    } finally {
      s.close();
    }
  }
  // no setter at all
  const s = SessionFile.create({ cwd: dir, sessionsDir: join(dir, "none") });
  s.appendMessage(user("only a question"));
  const file = s.file;
  s.close();
  const reopened = SessionFile.open(file, { readOnly: true });
  const ctx = reopened.buildContext();
  assert.equal(ctx.model, null);
  assert.equal(ctx.thinkingLevel, "off");
  assert.deepStrictEqual(ctx, eagerContext(file));
  reopened.close();
});

/** `file` with the line of entry `id` damaged past its light fields (its front and closing brace kept), at its `key`. */
function damage(file: string, id: string, key: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(`"id":"${id}"`));
  assert.ok(at > 0 && lines[at].includes(`"${key}":`), `line of ${id}`);
  lines[at] = lines[at].replace(`"${key}":`, `"${key}":"unterminated,"x":`);
  writeFileSync(file, lines.join("\n"));
}

test("a damaged line is left out; a damaged setter gives way to the one before it, as in the eager build", (t) => {
  const dir = tempDir(t);
  const file = settersSession(dir, "damaged", "assistant");
  const probe = SessionFile.open(file, { readOnly: true });
  const path = probe.branchPath(undefined, { keep: false });
  probe.close();
  const messageIds = path.filter((e) => e.type === "message").map((e) => e.id);
  const lastAssistant = path.findLast((e) => e.type === "message" && e.message.role === "assistant")!.id;
  const lastThinking = path.findLast((e) => e.type === "thinking_level_change")!.id;
  // a message in the middle, then also the last thinking level change, then also the message the model is read from
  const damaged: [string, string][] = [[messageIds[7], "content"], [lastThinking, "thinkingLevel"], [lastAssistant, "content"]];
  for (const [n, [id, key]] of damaged.entries()) {
    damage(file, id, key);
    const expected = eagerContext(file);
    const s = SessionFile.open(file, { readOnly: true });
    try {
      const ctx = s.buildContext();
      assert.equal(ctx.thinkingLevel, n >= 1 ? "low" : "high", "a damaged thinking level change sets nothing");
      assert.deepStrictEqual(ctx.model, { provider: "anthropic", modelId: n >= 2 ? "model-28" : "model-29" }, "a damaged assistant message sets no model");
      assert.ok(!ctx.entryIds.includes(id), "the damaged entry is left out");
      assert.deepStrictEqual(ctx, expected);
      assert.equal(s.warnings.filter((w) => w.kind === "unreadable-entry").length, n + 1);
    } finally {
      s.close();
    }
  }
});

test("a context_edit on the path: the eager build, exact", (t) => {
  const dir = tempDir(t);
  const file = settersSession(dir, "edited", "assistant");
  const w = SessionFile.open(file);
  const target = w.branchPath(undefined, { keep: false }).find((e) => e.type === "message" && e.message.role === "user")!.id;
  w.append({ type: "context_edit", targetId: target, replacement: null });
  w.appendMessage(user("after the edit"));
  w.close();
  const s = SessionFile.open(file, { readOnly: true });
  try {
    const ctx = s.buildContext();
    assert.ok(!isLazy(ctx), "built at once");
    assert.ok(!ctx.entryIds.includes(target), "the edited-out message");
    assert.ok(ctx.freshFrom > 0);
    assert.deepStrictEqual(ctx, eagerContext(file));
  } finally {
    s.close();
  }
});

test("a context built before an append is the context of the leaf it was built at", (t) => {
  const dir = tempDir(t);
  const file = settersSession(dir, "append", "assistant");
  const expected = eagerContext(file);
  const s = SessionFile.open(file);
  try {
    const ctx = s.buildContext();
    assert.ok(isLazy(ctx));
    s.appendMessage(assistant("appended after the build"));
    assert.deepStrictEqual(ctx, expected);
    assert.equal(s.buildContext().messages.length, expected.messages.length + 1);
  } finally {
    s.close();
  }
});

test("close builds the contexts not read yet: they read after close as before; a warmed context parses nothing", async (t) => {
  const dir = tempDir(t);
  const file = settersSession(dir, "closed", "model_change");
  const expected = eagerContext(file);
  const s = SessionFile.open(file, { readOnly: true });
  const ctx = s.buildContext();
  const other = s.buildContext(expected.entryIds[5]);
  assert.ok(isLazy(ctx) && isLazy(other));
  const atClose = countParses(() => s.close());
  assert.ok(atClose.chars > 10_000, `close parsed the unread contexts' entries (${atClose.chars} characters)`);
  assert.ok(!isLazy(ctx) && !isLazy(other), "built by close");
  assert.deepStrictEqual(ctx, expected);
  assert.deepStrictEqual(other.entryIds, expected.entryIds.slice(0, 6));

  // contexts already read, or built from entries already parsed, leave close nothing to do
  const warmed = SessionFile.open(file, { readOnly: true });
  await warmed.warmContextAsync();
  assert.equal(countParses(() => void warmed.buildContext()).calls, 0, "a context after warmContextAsync parses nothing");
  const read = SessionFile.open(file, { readOnly: true });
  void read.buildContext().messages;
  for (const f of [warmed, read]) assert.equal(countParses(() => f.close()).calls, 0);
});

test("a context nobody holds any more is not built at close", async (t) => {
  const file = settersSession(tempDir(t), "dropped", "assistant");
  const s = SessionFile.open(file, { readOnly: true });
  assert.equal(s.buildContext().model?.modelId, "model-29");
  // a WeakRef's target is kept until the current job ends
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  assert.equal(countParses(() => s.close()).calls, 0);
});

test("a lazy field assigned before it is read keeps what was assigned", (t) => {
  const file = settersSession(tempDir(t), "assign", "assistant");
  const expected = eagerContext(file);
  const s = SessionFile.open(file, { readOnly: true });
  try {
    const ctx = s.buildContext();
    ctx.messages = [];
    assert.deepStrictEqual(ctx.messages, []);
    assert.deepStrictEqual(ctx.entryIds, expected.entryIds);
    assert.deepStrictEqual(ctx.messages, []);
    assert.equal(ctx.freshFrom, expected.freshFrom);
  } finally {
    s.close();
  }
  // assigned, then closed before the others were read: close builds them all the same
  const closing = SessionFile.open(file, { readOnly: true });
  const ctx = closing.buildContext();
  ctx.messages = [];
  closing.close();
  assert.deepStrictEqual({ ...ctx }, { ...expected, messages: [] });
});
