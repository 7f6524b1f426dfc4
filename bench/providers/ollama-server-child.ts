// A fake Ollama in a process of its own for the Ollama provider bench, so the server's work never
// shares an event loop with what is measured. POST /api/chat answers with a prebuilt NDJSON body
// (the real line shapes of test/support/fake-ollama.ts), chosen by the request's model:
//   "small" — many small deltas (one to three characters a line, as Ollama streams tokens)
//   "long"  — long lines (4 KiB of text a line)
// Prints its URL on stdout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { replyLines } from "../../test/support/fake-ollama.js";

export const SMALL_LINES = Number(process.env.BENCH_OLLAMA_SMALL ?? 20_000);
export const LONG_LINES = Number(process.env.BENCH_OLLAMA_LONG ?? 2000);

const words = "the quick brown fox jumps over the lazy dog and keeps on running ";
const text = (chars: number) => words.repeat(Math.ceil(chars / words.length)).slice(0, chars);
const bodies: Record<string, Buffer> = {
  small: Buffer.from(replyLines({ content: text(SMALL_LINES * 3), chunkSize: 3, evalCount: SMALL_LINES }, "small", 100).map((l) => `${l}\n`).join("")),
  long: Buffer.from(replyLines({ content: text(LONG_LINES * 4096), chunkSize: 4096, evalCount: LONG_LINES }, "long", 100).map((l) => `${l}\n`).join("")),
};

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const model = String((JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { model?: unknown }).model);
  const body = bodies[model];
  if (!body) return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: `model "${model}" not found, try pulling it first` }));
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  // in 16 KiB pieces, as a socket would carry them
  for (let at = 0; at < body.length; at += 16_384) {
    if (!res.write(body.subarray(at, at + 16_384))) await new Promise((r) => res.once("drain", r));
  }
  res.end();
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
