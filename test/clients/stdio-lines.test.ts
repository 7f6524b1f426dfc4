// The client's stdio transport cuts the daemon's output into messages: lines split across many
// chunks (a 6 MB answer), several lines in one chunk, CRLF, blank lines, a multi-byte character
// cut between chunks, and a last line without its newline at exit. A real child writes them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { StdioTransport } from "../../clients/ts/node.js";

const BIG = 6_000_000;

test("stdio transport: lines across chunks, many per chunk, CRLF, blank lines, split UTF-8, no final newline", async () => {
  // the child writes in small pieces with pauses, so the pipe delivers many chunks per line
  const script = `
    const big = JSON.stringify({ jsonrpc: "2.0", method: "big", params: { text: "é".repeat(${BIG / 2}) } });
    const all = Buffer.from('{"a":1}\\n{"b":2}\\r\\n\\n' + big + '\\n{"c":"ü"}\\n{"last":true}');
    let at = 0;
    const step = () => {
      if (at >= all.length) return;
      // 65,537-byte pieces: odd, so some cut a two-byte character in half
      process.stdout.write(all.subarray(at, at += 65537), () => setImmediate(step));
    };
    step();
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: "pipe" });
  const t = new StdioTransport(child);
  const got: string[] = [];
  t.onMessage((text) => got.push(text));
  await new Promise<void>((resolve) => t.onClose(() => resolve()));
  assert.equal(got.length, 5, got.map((g) => g.slice(0, 40)).join(" | "));
  assert.deepEqual(got.slice(0, 2).map((g) => JSON.parse(g)), [{ a: 1 }, { b: 2 }]);
  const big = JSON.parse(got[2]);
  assert.equal(big.params.text.length, BIG / 2);
  assert.ok(/^é+$/.test(big.params.text), "no character was damaged at a chunk boundary");
  assert.deepEqual(JSON.parse(got[3]), { c: "ü" });
  assert.deepEqual(JSON.parse(got[4]), { last: true }, "the line without a newline is delivered at exit");
});
