// The pump under the OpenAI providers keeps the Provider port's contract an async generator
// gave them: events in order, a failure as the last event (never a throw), the SDK's stream
// closed when the consumer stops early, and the source disposed exactly once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyUsage, type AssistantMessage } from "../../src/messages/types.js";
import { pumpEvents, type EventSource } from "../../src/llm/event-pump.js";
import { ProviderError, type StreamEvent } from "../../src/llm/types.js";

const partial: AssistantMessage = { role: "assistant", content: [], api: "t", provider: "t", model: "m", usage: emptyUsage(), stopReason: "stop", timestamp: 0 };
const text = (delta: string): StreamEvent => ({ type: "text_delta", contentIndex: 0, delta, partial });

interface Trace {
  disposed: number;
  returned: number;
}

function source(chunks: string[], trace: Trace, overrides: Partial<EventSource<string>> = {}): EventSource<string> {
  return {
    start: () => ({ type: "start", partial }),
    async open() {
      return {
        [Symbol.asyncIterator]() {
          let i = 0;
          return {
            next: async () => (i < chunks.length ? { done: false, value: chunks[i++]! } : { done: true, value: undefined }),
            return: async () => (trace.returned++, { done: true, value: undefined }),
          };
        },
      };
    },
    read(chunk, out) {
      // "" makes no event; "ab" makes two
      for (const c of chunk) out.push(text(c));
    },
    end(out) {
      out.push({ type: "done", message: partial });
    },
    fail: (err) => ({ type: "error", message: partial, error: err instanceof ProviderError ? err : new ProviderError({ errorClass: "transient", message: (err as Error).message }) }),
    dispose: () => void trace.disposed++,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<string[]> {
  const seen: string[] = [];
  for await (const ev of events) seen.push(ev.type === "text_delta" ? ev.delta : ev.type === "error" ? `error:${ev.error.message}` : ev.type);
  return seen;
}

test("events come in order, chunks without events are skipped, the stream ends with done and is disposed once", async () => {
  const trace = { disposed: 0, returned: 0 };
  assert.deepEqual(await collect(pumpEvents(() => source(["a", "", "bc", "d"], trace))), ["start", "a", "b", "c", "d", "done"]);
  assert.equal(trace.disposed, 1);
});

test("nothing runs before the first next()", async () => {
  let built = 0;
  const trace = { disposed: 0, returned: 0 };
  const events = pumpEvents(() => (built++, source([], trace)));
  assert.equal(built, 0);
  assert.deepEqual(await collect(events), ["start", "done"]);
  assert.equal(built, 1);
});

test("a chunk that throws ends the stream with the error, without that chunk's events", async () => {
  const trace = { disposed: 0, returned: 0 };
  const events = pumpEvents(() =>
    source(["a", "bX", "c"], trace, {
      read(chunk, out) {
        for (const c of chunk) {
          if (c === "X") throw new Error("bad chunk");
          out.push(text(c));
        }
      },
    }),
  );
  assert.deepEqual(await collect(events), ["start", "a", "error:bad chunk"]);
  assert.equal(trace.disposed, 1);
});

test("an end that throws keeps the events it made before the error", async () => {
  const trace = { disposed: 0, returned: 0 };
  const events = pumpEvents(() =>
    source(["a"], trace, {
      end(out) {
        out.push(text("last"));
        throw new Error("cut");
      },
    }),
  );
  assert.deepEqual(await collect(events), ["start", "a", "last", "error:cut"]);
});

test("a request that fails, and an SDK stream that throws, end with the error event", async () => {
  const trace = { disposed: 0, returned: 0 };
  const refused = pumpEvents(() => source([], trace, { open: () => Promise.reject(new Error("refused")) }));
  assert.deepEqual(await collect(refused), ["start", "error:refused"]);
  const thrown = pumpEvents(() =>
    source([], trace, {
      async open() {
        return {
          [Symbol.asyncIterator]: () => {
            let i = 0;
            return { next: async () => (i++ === 0 ? { done: false, value: "a" } : Promise.reject(new Error("reset"))) };
          },
        };
      },
    }),
  );
  assert.deepEqual(await collect(thrown), ["start", "a", "error:reset"]);
  assert.equal(trace.disposed, 2);
});

test("a consumer that stops early closes the SDK's stream and disposes the source; the stream then ends", async () => {
  const trace = { disposed: 0, returned: 0 };
  const events = pumpEvents(() => source(["a", "b", "c"], trace));
  const seen: string[] = [];
  for await (const ev of events) {
    seen.push(ev.type);
    if (ev.type === "text_delta") break;
  }
  assert.deepEqual(seen, ["start", "text_delta"]);
  assert.equal(trace.returned, 1);
  assert.equal(trace.disposed, 1);
  assert.deepEqual(await events.next(), { done: true, value: undefined });
});
