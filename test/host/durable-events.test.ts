// SessionEvents over a shared store's sink (durable-sink.ts): an event waits until the lines
// written before it are durable, keeps its order, is numbered only when sent (so a replay never
// shows an event whose lines could still be lost), and is dropped if the sink is fenced first.
// The sink here is a hand-driven DurableSink: the PostgreSQL one is tested against a real server
// in test/store/pg-store.test.ts and, under these events, in test/store/fleet.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionEvents } from "../../src/host/live/session-events.js";
import type { DurableSink, SessionOwner, SinkLine } from "../../src/session/durable-sink.js";

class HandSink implements DurableSink {
  accepted = 0;
  durable = 0;
  fenced: SessionOwner | undefined;
  private waiters: { mark: number; resolve(): void; reject(e: Error): void }[] = [];
  accept(_line: SinkLine): void {
    this.accepted++;
  }
  whenDurable(mark: number): Promise<void> {
    if (this.fenced) return Promise.reject(new Error("fenced"));
    if (mark <= this.durable) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ mark, resolve, reject }));
  }
  onFenced(): void {}
  async close(): Promise<void> {}
  /** the next `n` lines become durable */
  commit(n: number): void {
    this.durable += n;
    for (const w of this.waiters.filter((w) => w.mark <= this.durable)) w.resolve();
    this.waiters = this.waiters.filter((w) => w.mark > this.durable);
  }
  fence(): void {
    this.fenced = { nodeId: "other" };
    for (const w of this.waiters) w.reject(new Error("fenced"));
    this.waiters = [];
  }
}

const line = (id: string): SinkLine => ({ id, parentId: null, type: "custom", line: "{}" });
const settle = () => new Promise((r) => setImmediate(r));

function setup() {
  const sink = new HandSink();
  const events = new SessionEvents("s1", (err) => assert.fail(String(err)), sink);
  const seen: { type: string; seq: number; message?: string }[] = [];
  events.subscribe((e) => seen.push({ type: e.type, seq: e.seq, message: (e as { message?: string }).message }));
  const say = (message: string) => events.emit("error", { code: 1, message });
  return { sink, events, seen, say };
}

test("with nothing pending an event goes at once; one after an uncommitted line waits for it, and those after it keep their order", async () => {
  const { sink, seen, say, events } = setup();
  say("a");
  assert.deepEqual(seen.map((e) => e.message), ["a"]);
  sink.accept(line("1"));
  say("b");
  sink.accept(line("2"));
  say("c");
  say("d");
  await settle();
  assert.deepEqual(seen.map((e) => e.message), ["a"], "held while line 1 is not durable");
  const late: string[] = [];
  const sub = events.subscribe((e) => late.push((e as { message?: string }).message ?? ""), 0);
  assert.equal(sub.replayed, 1, "a replay holds only what was sent");
  sink.commit(1);
  await settle();
  assert.deepEqual(seen.map((e) => e.message), ["a", "b"], "b's line is durable; c waits for line 2");
  sink.commit(1);
  await settle();
  assert.deepEqual(seen.map((e) => e.message), ["a", "b", "c", "d"]);
  assert.deepEqual(seen.map((e) => e.seq), [1, 2, 3, 4], "numbered in order as they were sent");
  assert.deepEqual(late, ["a", "b", "c", "d"]);
});

test("a fenced sink drops the held events; later ones go at once", async () => {
  const { sink, seen, say } = setup();
  sink.accept(line("1"));
  say("never stored");
  say("nor this");
  sink.fence();
  await settle();
  assert.equal(seen.length, 0, "nothing held was sent");
  say("moved");
  assert.deepEqual(seen.map((e) => e.message), ["moved"]);
});
