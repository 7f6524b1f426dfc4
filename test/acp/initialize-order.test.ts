// initializeInOrder (src/acp/initialize-order.ts) in process, over the ACP SDK's own connection:
// an initialize whose handler awaits (as any real work does) and requests pipelined right behind
// it. Without the wrapper the SDK refuses them with -32600; with it they are answered after
// initialize. A request before any initialize, and one behind a failed initialize, stay refused.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { test } from "node:test";
import { initializeInOrder } from "../../src/acp/initialize-order.js";

type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string } };

/** Writes `lines` to an SDK agent in one chunk; resolves with the answers, in the order written. */
async function run(lines: object[], wrap: boolean, count = lines.length): Promise<Answer[]> {
  const app = acp
    .agent({ name: "t" })
    .onRequest(acp.methods.agent.initialize, async () => {
      await new Promise((r) => setTimeout(r, 5));
      return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] };
    })
    .onRequest(acp.methods.agent.session.list, async () => ({ sessions: [] }));
  const bytes = new TextEncoder().encode(lines.map((l) => `${JSON.stringify({ jsonrpc: "2.0", ...l })}\n`).join(""));
  const input = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytes) });
  const answers: Answer[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      for (const l of new TextDecoder().decode(chunk).split("\n").filter(Boolean)) answers.push(JSON.parse(l) as Answer);
      if (answers.length >= count) done();
    },
  });
  const stream = acp.ndJsonStream(output, input);
  const connection = app.connect(wrap ? initializeInOrder(stream) : stream);
  const timer = setTimeout(done, 2_000);
  await all;
  clearTimeout(timer);
  connection.close();
  return answers;
}

const init = (id: number) => ({ id, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
const list = (id: number) => ({ id, method: "session/list", params: {} });
const byId = (answers: Answer[], id: number) => answers.find((a) => a.id === id);

test("without it the SDK refuses a request pipelined behind an initialize that awaits (the defect)", async () => {
  const answers = await run([init(1), list(2)], false);
  assert.equal(byId(answers, 2)?.error?.code, -32600, JSON.stringify(answers));
});

test("requests pipelined behind initialize are answered after it, in order", async () => {
  const answers = await run([init(1), list(2), list(3)], true);
  assert.deepEqual(
    answers.map((a) => [a.id, a.error?.code ?? "ok"]),
    [
      [1, "ok"],
      [2, "ok"],
      [3, "ok"],
    ],
  );
});

test("a request before any initialize is -32600; one behind a failed initialize too; after a good one, served", async () => {
  const answers = await run([list(1), { id: 2, method: "initialize", params: {} }, list(3), init(4), list(5)], true);
  assert.equal(byId(answers, 1)?.error?.code, -32600, JSON.stringify(answers));
  assert.equal(byId(answers, 2)?.error?.code, -32602, JSON.stringify(answers));
  assert.equal(byId(answers, 3)?.error?.code, -32600, JSON.stringify(answers));
  assert.equal(byId(answers, 4)?.error, undefined, JSON.stringify(answers));
  assert.equal(byId(answers, 5)?.error, undefined, JSON.stringify(answers));
});
