// A fake OpenAI-compatible server in a process of its own, for the providers bench: every
// request gets the same long streamed reply, in the frames test/support/fake-openai-frames.ts
// renders (Chat Completions chunks or Responses events, by route). The whole body is rendered
// once and written in one go, so the server never paces the client being measured.
// argv: <shape: text | tools> <deltas>. Prints its base URL (…/v1) on stdout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chatFrames, responsesFrames, type ReplySpec } from "../../test/support/fake-openai-frames.js";

const shape = process.argv[2] === "tools" ? "tools" : "text";
const deltas = Number(process.argv[3] ?? 20_000);
const spec: ReplySpec =
  shape === "text"
    ? { content: [{ type: "text", text: "x".repeat(deltas), chunkSize: 1 }], usage: { input: 10, output: deltas } }
    : // the arguments JSON is {"content":"yyy…"}: its `deltas` one-character pieces carry the y's, plus the 14 characters around them
      { content: [{ type: "tool_call", name: "write", arguments: { content: "y".repeat(deltas - 14) }, chunkSize: 1, id: "call_bench" }], usage: { input: 10, output: deltas } };
const bodies = new Map<string, string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { stream_options?: { include_usage?: boolean } };
    const route = req.url?.startsWith("/v1/responses") ? "responses" : "chat";
    const includeUsage = body.stream_options?.include_usage === true;
    const key = `${route}:${includeUsage}`;
    let text = bodies.get(key);
    if (!text) {
      const ctx = { n: 1, model: "bench-model", includeUsage, includeEncrypted: false, estimatedInput: 10 };
      text = (route === "chat" ? chatFrames(spec, ctx) : responsesFrames(spec, ctx)).frames.join("");
      bodies.set(key, text);
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(text);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
