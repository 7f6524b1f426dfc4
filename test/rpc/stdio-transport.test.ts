import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { MAX_BATCH_CHARS, stdioConnection } from "../../src/rpc/stdio-transport.js";

function setup(maxLineBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const conn = stdioConnection(input, output, maxLineBytes === undefined ? {} : { maxLineBytes });
  const messages: string[] = [];
  const oversize: number[] = [];
  let closed = 0;
  conn.onMessage((m) => messages.push(m));
  conn.onOversize((b) => oversize.push(b));
  conn.onClose(() => closed++);
  return { input, output, conn, messages, oversize, closed: () => closed };
}

/** lets PassThrough deliver what was written */
const tick = () => new Promise<void>((r) => setImmediate(r));

test("lines split across chunks, inside multi-byte characters", { timeout: 5000 }, async () => {
  const { input, messages } = setup();
  const texts = ['{"a":"héllo € 𝄞 日本"}', '{"b":"ü"}', "x"];
  const bytes = Buffer.from(texts.map((t) => t + "\n").join(""), "utf8");
  for (let i = 0; i < bytes.length; i++) input.write(bytes.subarray(i, i + 1)); // one byte per chunk
  await tick();
  assert.deepEqual(messages, texts);

  // several lines in one chunk, a line split into uneven chunks
  messages.length = 0;
  const all = Buffer.from('{"n":1}\n{"n":2}\n{"emoji":"😀😀"}\n', "utf8");
  input.write(all.subarray(0, 20));
  input.write(all.subarray(20, 27));
  input.write(all.subarray(27));
  await tick();
  assert.deepEqual(messages, ['{"n":1}', '{"n":2}', '{"emoji":"😀😀"}']);
});

test("CRLF: one trailing CR stripped; other CRs kept", { timeout: 5000 }, async () => {
  const { input, messages } = setup();
  input.write("a\r\nb\r");
  input.write("\nc\r\r\nd\re\n");
  await tick();
  assert.deepEqual(messages, ["a", "b", "c\r", "d\re"]);
});

test("U+2028 / U+2029 stay inside a message", { timeout: 5000 }, async () => {
  const { input, messages } = setup();
  const text = JSON.stringify({ s: "one\u2028two\u2029three\u0085four" });
  // JSON.stringify does not escape U+2028: make sure the raw character is there
  assert.ok(text.includes("\u2028"));
  input.write(text + "\n");
  await tick();
  assert.deepEqual(messages, [text]);
  assert.deepEqual(JSON.parse(messages[0]), { s: "one\u2028two\u2029three\u0085four" });
});

test("empty lines are ignored", { timeout: 5000 }, async () => {
  const { input, messages, oversize } = setup();
  input.write("\n\n\r\n1\n\n2\n\r\n");
  await tick();
  assert.deepEqual(messages, ["1", "2"]);
  assert.deepEqual(oversize, []);
});

test("oversize line: discarded, onOversize once with its length, next line fine", { timeout: 5000 }, async () => {
  const { input, messages, oversize } = setup(10);
  input.write("0123456789\n"); // exactly the limit: fine
  input.write("0123456789\r\n"); // the limit plus the stripped CR: fine
  input.write("01234567"); // 25 bytes over three chunks
  input.write("89abcdefgh");
  input.write("ijklmno\r");
  input.write("\nafter\n");
  await tick();
  assert.deepEqual(messages, ["0123456789", "0123456789", "after"]);
  assert.deepEqual(oversize, [25]);

  // a long line in one chunk, then two oversize lines in a row, then a normal one
  input.write("x".repeat(1000) + "\n" + "y".repeat(11) + "\nok\n");
  await tick();
  assert.deepEqual(oversize, [25, 1000, 11]);
  assert.deepEqual(messages, ["0123456789", "0123456789", "after", "ok"]);
});

test("EOF fires onClose once; an unterminated last line is delivered", { timeout: 5000 }, async () => {
  const { input, messages, closed } = setup();
  input.write("a\nb");
  input.end();
  await once(input, "end");
  await tick();
  assert.deepEqual(messages, ["a", "b"]);
  assert.equal(closed(), 1);
});

test("messages that arrive before the handler are kept, in order", { timeout: 5000 }, async () => {
  const input = new PassThrough();
  const conn = stdioConnection(input, new PassThrough());
  input.write("1\n2\n");
  await tick();
  const got: string[] = [];
  conn.onMessage((m) => got.push(m));
  input.write("3\n");
  await tick();
  assert.deepEqual(got, ["1", "2", "3"]);
});

test("send writes message + LF and nothing else; order kept under backpressure", { timeout: 5000 }, async () => {
  const received: Buffer[] = [];
  let maxBuffered = 0;
  let refusals = 0;
  const slow = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, cb) {
      received.push(chunk);
      setImmediate(cb); // a slow reader: one write per turn of the event loop
    },
  });
  const realWrite = slow.write.bind(slow) as (chunk: string, cb?: (err?: Error | null) => void) => boolean;
  (slow as unknown as { write: typeof realWrite }).write = (chunk, cb) => {
    const ok = realWrite(chunk, cb);
    maxBuffered = Math.max(maxBuffered, slow.writableLength);
    if (!ok) refusals++;
    return ok;
  };
  const conn = stdioConnection(new PassThrough(), slow);
  const sent: string[] = [];
  for (let i = 0; i < 200; i++) {
    const m = JSON.stringify({ jsonrpc: "2.0", method: "n", params: { i, pad: "é".repeat(i % 7) } });
    sent.push(m);
    conn.send(m);
  }
  await conn.flushed();
  assert.equal(Buffer.concat(received).toString("utf8"), sent.map((m) => m + "\n").join(""));
  assert.ok(refusals > 0, "the writable pushed back");
  // the transport waits for 'drain': at most one batch (messages sent in one turn, capped) beyond the high-water mark
  const longest = Math.max(...sent.map((m) => Buffer.byteLength(m) + 1));
  assert.ok(maxBuffered <= 64 + 2 * MAX_BATCH_CHARS + longest, `buffered ${maxBuffered}`);
});

test("a reader that stops reading: past maxPendingChars unread the connection closes, once, and holds no more", { timeout: 5000 }, async () => {
  const stalled = new Writable({
    highWaterMark: 64,
    write() {
      // never calls back: the reader has stopped
    },
  });
  const conn = stdioConnection(new PassThrough(), stalled, { maxPendingChars: 200_000 });
  let closed = 0;
  conn.onClose(() => closed++);
  const message = JSON.stringify({ jsonrpc: "2.0", method: "n", params: { pad: "x".repeat(10_000) } });
  for (let i = 0; i < 100; i++) {
    conn.send(message);
    await tick();
  }
  assert.equal(closed, 1);
  assert.equal(conn.abandoned, true);
  assert.ok(stalled.writableLength <= 200_000 + message.length + 1, `buffered ${stalled.writableLength}`);
  await conn.flushed(); // resolves: nothing more will be written
});

test("a write error (EPIPE) closes the connection quietly; later sends are no-ops", { timeout: 5000 }, async () => {
  const failing = new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    },
  });
  const conn = stdioConnection(new PassThrough(), failing);
  let closed = 0;
  conn.onClose(() => closed++);
  conn.send("one");
  await tick();
  await tick();
  assert.equal(closed, 1);
  assert.doesNotThrow(() => conn.send("two"));
  await conn.flushed();
  assert.equal(closed, 1);
});

test("a real EPIPE (reader process gone) closes the connection once, is logged, throws nothing; later sends write nothing", { timeout: 5000 }, async (t) => {
  // The reader closes its end of the pipe but stays alive: the write fails with EPIPE itself (a
  // reader that has exited leaves a pipe node has already destroyed, a different failure).
  const child = spawn(process.execPath, ["-e", "require('fs').closeSync(0); process.stdout.write('closed'); setTimeout(() => {}, 30000)"], { stdio: ["pipe", "pipe", "ignore"] });
  t.after(() => child.kill());
  await once(child.stdout!, "data");
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on("uncaughtException", onUncaught);
  t.after(() => process.removeListener("uncaughtException", onUncaught));
  const logs: Array<{ msg: string; err?: { code?: string } }> = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const stdin = child.stdin!;
  let writesAfterClose = 0;
  let closes = 0;
  const write = stdin.write.bind(stdin) as (...args: unknown[]) => boolean;
  stdin.write = ((...args: unknown[]) => (closes > 0 && writesAfterClose++, write(...args))) as typeof stdin.write;
  const conn = stdioConnection(new PassThrough(), stdin, { logger });
  const closed = new Promise<void>((resolve) => conn.onClose(() => (closes++, resolve())));
  for (let i = 0; i < 50; i++) conn.send(JSON.stringify({ i, pad: "x".repeat(4096) }));
  await closed;
  conn.send("after");
  await conn.flushed();
  await tick();
  assert.equal(closes, 1, "onClose fired once");
  assert.deepEqual(
    logs.map((l) => [l.msg, l.err?.code]),
    [["stdio transport: output failed, closing", "EPIPE"]],
    "the write error is the reason, logged once",
  );
  assert.equal(writesAfterClose, 0, "nothing is written once the connection closed");
  assert.deepEqual(uncaught, [], "the EPIPE did not escape as an uncaught exception");
});

test("close() stops reading, fires onClose once, drops later sends", { timeout: 5000 }, async () => {
  const { input, output, conn, messages, closed } = setup();
  const out: string[] = [];
  output.on("data", (c: Buffer) => out.push(c.toString()));
  input.write("1\n");
  await tick();
  conn.send("a");
  conn.close();
  conn.close();
  conn.send("b");
  input.write("2\n");
  // sends go out in one write per event-loop turn: wait for that write, not for a fixed time
  await conn.flushed();
  await sleep(5);
  assert.deepEqual(messages, ["1"]);
  assert.equal(closed(), 1);
  assert.equal(out.join(""), "a\n");
  let late = 0;
  conn.onClose(() => late++);
  await tick();
  assert.equal(late, 1, "a handler registered after close is called");
});
