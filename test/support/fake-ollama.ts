// A fake Ollama on 127.0.0.1 for provider and discovery tests: POST /api/chat streams real NDJSON
// lines (the shapes of ollama/ollama docs/api.md and api/types.go), GET /api/tags and POST
// /api/show answer from a model table, so nothing in a test reaches the network.
//
//   const server = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40960, capabilities: ["completion", "tools", "thinking"] }] });
//   server.enqueue(ollamaText("hello"), ollamaHttpError(500, "boom"));
//   ... provider.stream(...) ...
//   server.chatRequests[0].body.options.num_ctx   // what the client sent
//   await server.close();
//
// Each POST /api/chat takes the next scenario (`enqueue`), or a short text reply when the queue
// is empty. When the model table is not empty, a chat for a model it lacks gets Ollama's 404
// `model "x" not found, try pulling it first` without using a scenario.
//
// Scenarios (plain data; builders below):
// - reply: thinking / content (split into `chunkSize` code points per line), toolCalls (one line
//   each, sent whole as Ollama does, arguments as an object), then the final line with
//   done_reason, prompt_eval_count, eval_count and the durations. `writeAll` sends the whole body
//   in one write (for benchmarks); `splitWrites` sends every line in two writes cut through its
//   middle bytes (to test readers across chunk boundaries); `delayMs` waits before each line.
// - http_error: status + {"error": message} (or `rawBody` as it is).
// - stream_error: `afterLines` lines of the reply, then {"error": message}, then the end.
// - cut: `afterLines` lines, then the socket is destroyed (no final line).
// - hang: `afterLines` lines (default 0; `beforeHeaders`: not even headers), then nothing until
//   the client goes away or close().
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface FakeOllamaModel {
  name: string;
  /** model_info["<arch>.context_length"] of /api/show */
  contextLength?: number;
  /** general.architecture (default "llama") */
  arch?: string;
  /** a `num_ctx` line in /api/show's `parameters` (a Modelfile PARAMETER) */
  numCtx?: number;
  capabilities?: string[];
  /** also put context_length in /api/tags' details (newer Ollama does) */
  contextLengthInTags?: boolean;
}

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** default: call_<n>, as newer Ollama generates; null: no id (older Ollama) */
  id?: string | null;
}

export interface ReplySpec {
  thinking?: string;
  content?: string;
  toolCalls?: FakeToolCall[];
  doneReason?: "stop" | "length" | "load";
  /** default: the request body's length / 4 */
  promptEvalCount?: number;
  /** sent only when set (newer servers): prompt tokens read from the KV cache */
  promptEvalCachedCount?: number;
  /** omit prompt_eval_count (Ollama before mid-2024 did with a fully cached prompt) */
  omitPromptEvalCount?: boolean;
  /** default: the number of content lines */
  evalCount?: number;
  /** code points per line (default 4) */
  chunkSize?: number;
  delayMs?: number;
  writeAll?: boolean;
  splitWrites?: boolean;
}

export type OllamaScenario =
  | ({ kind: "reply" } & ReplySpec)
  | { kind: "http_error"; status: number; message?: string; rawBody?: string; headers?: Record<string, string> }
  | { kind: "stream_error"; reply?: ReplySpec; afterLines?: number; message: string }
  | { kind: "cut"; reply?: ReplySpec; afterLines?: number }
  | { kind: "hang"; reply?: ReplySpec; afterLines?: number; beforeHeaders?: boolean };

interface RecordedOllamaRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  rawBody: string;
}

export interface FakeOllama {
  readonly url: string;
  /** every request, in order */
  readonly requests: RecordedOllamaRequest[];
  /** the POST /api/chat requests only */
  readonly chatRequests: RecordedOllamaRequest[];
  enqueue(...scenarios: OllamaScenario[]): void;
  setModels(models: FakeOllamaModel[]): void;
  /** connections that went away before their response was complete (the client aborted) */
  readonly clientClosed: number;
  close(): Promise<void>;
}

export const ollamaText = (content: string, spec: ReplySpec = {}): OllamaScenario => ({ kind: "reply", content, ...spec });
export const ollamaThinking = (thinking: string, content: string, spec: ReplySpec = {}): OllamaScenario => ({ kind: "reply", thinking, content, ...spec });
export const ollamaToolCalls = (toolCalls: FakeToolCall[], spec: ReplySpec = {}): OllamaScenario => ({ kind: "reply", toolCalls, ...spec });
export const ollamaHttpError = (status: number, message: string): OllamaScenario => ({ kind: "http_error", status, message });
export const ollamaStreamError = (message: string, afterLines = 2, reply: ReplySpec = { content: "partial answer before the failure" }): OllamaScenario => ({ kind: "stream_error", message, afterLines, reply });

const STAMP = "2026-11-26T10:00:00.000000Z";

function chunkCodePoints(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += Math.max(1, size)) out.push(points.slice(i, i + size).join(""));
  return out;
}

/** The NDJSON lines of a reply, as Ollama streams them. */
export function replyLines(spec: ReplySpec, model: string, promptChars: number): string[] {
  const lines: string[] = [];
  const message = (m: Record<string, unknown>) => JSON.stringify({ model, created_at: STAMP, message: { role: "assistant", content: "", ...m }, done: false });
  const size = spec.chunkSize ?? 4;
  let contentLines = 0;
  for (const t of spec.thinking ? chunkCodePoints(spec.thinking, size) : []) lines.push(message({ thinking: t }));
  for (const t of spec.content ? chunkCodePoints(spec.content, size) : []) {
    lines.push(message({ content: t }));
    contentLines++;
  }
  (spec.toolCalls ?? []).forEach((c, i) => {
    const id = c.id === undefined ? `call_fake${i}` : c.id;
    lines.push(message({ tool_calls: [{ ...(id === null ? {} : { id }), function: { index: i, name: c.name, arguments: c.arguments } }] }));
  });
  lines.push(
    JSON.stringify({
      model,
      created_at: STAMP,
      message: { role: "assistant", content: "" },
      done: true,
      done_reason: spec.doneReason ?? "stop",
      total_duration: 4_883_583_458,
      load_duration: 1_334_875,
      ...(spec.omitPromptEvalCount ? {} : { prompt_eval_count: spec.promptEvalCount ?? Math.max(1, Math.ceil(promptChars / 4)) }),
      ...(spec.promptEvalCachedCount !== undefined ? { prompt_eval_cached_count: spec.promptEvalCachedCount } : {}),
      prompt_eval_duration: 342_546_000,
      eval_count: spec.evalCount ?? Math.max(1, contentLines + (spec.toolCalls?.length ?? 0)),
      eval_duration: 4_535_599_000,
    }),
  );
  return lines;
}

function showBody(m: FakeOllamaModel): Record<string, unknown> {
  const arch = m.arch ?? "llama";
  const params = [`stop                           "<|im_end|>"`, ...(m.numCtx ? [`num_ctx                        ${m.numCtx}`] : [])].join("\n");
  return {
    license: "Apache License 2.0",
    modelfile: `# Modelfile generated by "ollama show"\nFROM ${m.name}\n`,
    parameters: params,
    template: "{{ .Prompt }}",
    details: { parent_model: "", format: "gguf", family: arch, families: [arch], parameter_size: "8.2B", quantization_level: "Q4_K_M" },
    model_info: {
      "general.architecture": arch,
      "general.file_type": 15,
      "general.parameter_count": 8_190_735_360,
      [`${arch}.attention.head_count`]: 32,
      [`${arch}.block_count`]: 36,
      ...(m.contextLength ? { [`${arch}.context_length`]: m.contextLength } : {}),
      // a key that also ends in context_length but is not the window
      [`${arch}.rope.scaling.original_context_length`]: 4096,
      [`${arch}.embedding_length`]: 4096,
    },
    capabilities: m.capabilities ?? ["completion"],
    modified_at: "2026-11-20T09:00:00.000000000Z",
  };
}

export async function startFakeOllama(options: { models?: FakeOllamaModel[] } = {}): Promise<FakeOllama> {
  let models = options.models ?? [];
  const queue: OllamaScenario[] = [];
  const requests: RecordedOllamaRequest[] = [];
  const chatRequests: RecordedOllamaRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  let clientClosed = 0;

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: Record<string, any> = {};
    try {
      body = rawBody ? (JSON.parse(rawBody) as Record<string, any>) : {};
    } catch {
      // recorded as {}
    }
    const path = (req.url ?? "/").split("?")[0]!;
    const rec: RecordedOllamaRequest = { method: req.method ?? "", path, headers: req.headers, body, rawBody };
    requests.push(rec);
    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(payload);
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    const ac = new AbortController();
    let cutByUs = false;
    const onClose = () => ac.abort();
    closing.signal.addEventListener("abort", onClose, { once: true });
    res.on("close", () => {
      closing.signal.removeEventListener("abort", onClose);
      if (!res.writableFinished && !closing.signal.aborted && !cutByUs) clientClosed++;
      ac.abort();
    });

    if (req.method === "GET" && path === "/api/tags") {
      json(200, {
        models: models.map((m) => ({
          name: m.name,
          model: m.name,
          modified_at: "2026-11-20T09:00:00.000000000Z",
          size: 5_225_376_047,
          digest: "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
          details: { parent_model: "", format: "gguf", family: m.arch ?? "llama", families: [m.arch ?? "llama"], parameter_size: "8.2B", quantization_level: "Q4_K_M", ...(m.contextLengthInTags && m.contextLength ? { context_length: m.contextLength } : {}) },
          ...(m.contextLengthInTags && m.capabilities ? { capabilities: m.capabilities } : {}),
        })),
      });
      return;
    }
    if (req.method === "POST" && path === "/api/show") {
      const name = String(body.model ?? body.name ?? "");
      const m = models.find((x) => x.name === name || x.name === `${name}:latest`);
      if (m) json(200, showBody(m));
      else json(404, { error: `model '${name}' not found` });
      return;
    }
    if (req.method !== "POST" || path !== "/api/chat") {
      res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
      return;
    }
    chatRequests.push(rec);
    const model = String(body.model ?? "");
    if (models.length > 0 && !models.some((m) => m.name === model || m.name === `${model}:latest`)) {
      json(404, { error: `model "${model}" not found, try pulling it first` });
      return;
    }
    const scenario = queue.shift() ?? { kind: "reply", content: "ok" };
    if (scenario.kind === "http_error") {
      if (scenario.rawBody !== undefined) {
        res.writeHead(scenario.status, { "content-type": "text/plain", ...scenario.headers }).end(scenario.rawBody);
      } else json(scenario.status, { error: scenario.message ?? "error" }, scenario.headers);
      return;
    }
    if (scenario.kind === "hang" && scenario.beforeHeaders) return void (await waitClosed(ac.signal));
    const spec: ReplySpec = scenario.kind === "reply" ? scenario : (scenario.reply ?? { content: "partial answer" });
    let lines = replyLines(spec, model, rawBody.length);
    if (scenario.kind !== "reply") lines = lines.slice(0, Math.min(scenario.afterLines ?? 0, lines.length - 1));
    res.writeHead(200, { "content-type": "application/x-ndjson", date: new Date().toUTCString() });
    res.flushHeaders();
    if (spec.writeAll) {
      if (!(await write(res, ac.signal, lines.map((l) => `${l}\n`).join("")))) return;
    } else {
      for (const line of lines) {
        if (spec.delayMs && !(await pause(spec.delayMs, ac.signal))) return;
        const bytes = Buffer.from(`${line}\n`);
        const parts = spec.splitWrites ? [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)] : [bytes];
        for (const p of parts) if (!(await write(res, ac.signal, p))) return;
      }
    }
    if (scenario.kind === "stream_error") {
      await write(res, ac.signal, `${JSON.stringify({ error: scenario.message })}\n`);
      res.end();
    } else if (scenario.kind === "cut") {
      cutByUs = true;
      res.destroy();
    }
    else if (scenario.kind === "hang") await waitClosed(ac.signal);
    else res.end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    chatRequests,
    enqueue: (...s) => void queue.push(...s),
    setModels: (m) => void (models = m),
    get clientClosed() {
      return clientClosed;
    },
    close: async () => {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function write(res: import("node:http").ServerResponse, signal: AbortSignal, data: string | Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted || res.destroyed) return resolve(false);
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    res.write(data, (err) => {
      signal.removeEventListener("abort", onAbort);
      resolve(!err && !signal.aborted);
    });
  });
}

async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function waitClosed(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}
