// A fake OpenAI-compatible server on 127.0.0.1 for provider (and daemon) tests: the real `openai`
// SDK talks to it over HTTP and gets real SSE, streamed the way each real server streams it.
//
//   const server = await startFakeOpenAI();
//   const provider = new OpenAICompletionsProvider({ apiKey: "test-key", baseURL: server.baseURL });
//   server.enqueue(textReply("hello"), toolCallReply("read", { path: "a.ts" }), overflowError("vllm", 5000, 4096));
//   ... each POST takes the next scenario ...
//   server.requests[0].body.messages     // what the client sent
//   await server.close();
//
// Routes: POST /v1/chat/completions (Chat Completions; `stream: true` -> SSE chunks, otherwise one
// chat.completion JSON), POST /v1/responses (Responses API; SSE events), GET /v1/models (the list
// set with setModels). Anything else -> 404 in OpenAI's error shape.
//
// Scenarios are plain data, one per POST, from the queue (`enqueue`), else from the responder
// (`setResponder`: computed from the request, for fakes that act on what they are sent; undefined
// falls through), else the default (`setDefault`; initially a text reply "ok"). Builders are in ./fake-openai-scenarios.ts (re-exported).
// The same reply scenario renders on either route (fake-openai-frames.ts says how), so a test can
// drive either provider with it.
// - { kind: "reply", content: [...blocks], finish?, usage?, ...knobs }: text, reasoning and tool-call
//   blocks (see ReplySpec for each server's quirks: reasoning field, interleaved or whole tool
//   calls, where usage goes, DeepSeek's cache fields, OpenRouter's keep-alive comments, [DONE]).
//   Usage is sent only when the request asks for it (stream_options.include_usage), encrypted
//   reasoning only when the request includes "reasoning.encrypted_content", as the real servers do.
// - { kind: "http_error", status, body?, text?, headers? }: the body exactly as given (a JSON value,
//   or `text` sent as is). Real servers' bodies: ./openai-error-bodies.ts.
// - { kind: "stream_error", error, reply?, afterFrames?, style? }: frames of `reply` (default: all
//   before its finish), then the error inside the 200 stream: Chat Completions `data: {"error": ...}`
//   (llama.cpp, OpenRouter); Responses `event: error` (style "event", default) or
//   `event: response.failed` (style "failed").
// - { kind: "cut", reply?, afterFrames?, beforeHeaders?, clean? }: frames, then the socket destroyed
//   (clean: the response just ends, as a server that stops without finishing its reply).
// - { kind: "hang", reply?, afterFrames?, beforeHeaders? }: headers (and frames), then silence.
//
// - { kind: "endless", delta?, perWrite?, maxBytes? }: a text reply whose deltas never end until the
//   client closes the connection (past maxBytes, a safety stop, it finishes); the request's
//   `streamed` counts the delta bytes sent (endless-stream.ts).
//
// setContextLimit(maximum, server) makes it refuse prompts over a window like a real endpoint
// (estimated at 4 characters a token, the output limit counted in where that server counts it),
// with that server's overflow body. Every request is recorded before it is answered;
// whenEnded(i) resolves when the i-th request's connection is done, saying how.
import { setMaxListeners } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { abortableWait, abortableWrite } from "./abortable-io.js";
import { chunkCodePoints } from "./chunks.js";
import { streamEndless, type EndlessOptions } from "./endless-stream.js";
import { argsText, chatFrames, finishOf, responsesFrames, type Frames, type ReplySpec } from "./fake-openai-frames.js";
import { overflowError, type OverflowServer } from "./openai-error-bodies.js";

export * from "./fake-openai-frames.js";
export * from "./fake-openai-scenarios.js";
export * from "./openai-error-bodies.js";

export interface ReplyScenario extends ReplySpec {
  kind: "reply";
}
export interface HttpErrorScenario {
  kind: "http_error";
  status: number;
  /** a JSON value, sent as JSON */
  body?: unknown;
  /** a body sent as is (not JSON) */
  text?: string;
  headers?: Record<string, string>;
}
export interface StreamErrorScenario {
  kind: "stream_error";
  error: { message: string; code?: string | number | null; type?: string; [k: string]: unknown };
  reply?: ReplySpec;
  afterFrames?: number;
  /** Responses route: `event: error` (default) or `event: response.failed` */
  style?: "event" | "failed";
}
export interface CutScenario {
  kind: "cut";
  reply?: ReplySpec;
  afterFrames?: number;
  beforeHeaders?: boolean;
  /** end the response cleanly instead of destroying the socket (a server that just stops) */
  clean?: boolean;
}
export interface HangScenario {
  kind: "hang";
  reply?: ReplySpec;
  afterFrames?: number;
  beforeHeaders?: boolean;
}
export interface EndlessScenario extends EndlessOptions {
  kind: "endless";
}
export type Scenario = ReplyScenario | HttpErrorScenario | StreamErrorScenario | CutScenario | HangScenario | EndlessScenario;

type RequestEndHow = "completed" | "client_closed" | "cut" | "server_closed";
interface RequestEnd {
  how: RequestEndHow;
  at: number;
}

interface RecordedRequest {
  method: string;
  /** without the query, e.g. "/v1/chat/completions" */
  path: string;
  headers: IncomingHttpHeaders;
  /** the parsed JSON body ({} when there is none or it is not JSON) */
  body: Record<string, any>;
  rawBody: string;
  time: number;
  scenario?: Scenario;
  end?: RequestEnd;
  /** an endless scenario: bytes of delta text sent so far */
  streamed?: number;
}

export interface FakeOpenAI {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** the SDK's baseURL: url + "/v1" */
  readonly baseURL: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  enqueue(...scenarios: Scenario[]): void;
  setDefault(scenario: Scenario): void;
  /** computes the scenario of a POST the queue has none for; undefined: the default answers */
  setResponder(responder: Responder | undefined): void;
  remaining(): number;
  /** GET /v1/models answers with these entries (each at least {id}; extra fields as given, e.g. max_model_len) */
  setModels(models: Record<string, unknown>[]): void;
  /** refuse prompts over `maximum` tokens with `server`'s overflow body; undefined lifts the limit */
  setContextLimit(maximum: number | undefined, server?: OverflowServer): void;
  whenEnded(index: number): Promise<RequestEnd>;
  close(): Promise<void>;
}

/** the request's parsed JSON body (as in `requests`) and its record -> a scenario, or undefined for the default */
type Responder = (body: Record<string, any>, request: RecordedRequest) => Scenario | undefined;

const DEFAULT_SCENARIO: ReplyScenario = { kind: "reply", content: [{ type: "text", text: "ok" }] };
const PARTIAL_REPLY: ReplySpec = { content: [{ type: "text", text: "partial answer before trouble" }] };
const estimateTokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

/** one chat.completion object, for a request without `stream: true` */
function completionJson(spec: ReplySpec, n: number, model: string, input: number): Record<string, unknown> {
  const text = spec.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("");
  const reasoning = spec.content.filter((b) => b.type === "reasoning").map((b) => (b as { text: string }).text).join("");
  const calls = spec.content.flatMap((b, i) => (b.type === "tool_call" ? [{ id: b.id ?? `call_fake${n}_${i}`, type: "function", function: { name: b.name, arguments: argsText(b) } }] : []));
  const output = spec.usage?.output ?? estimateTokens(chunkCodePoints(text + reasoning, 1).length);
  const message = { role: "assistant", content: text || null, ...(reasoning ? { [spec.reasoningField ?? "reasoning_content"]: reasoning } : {}), ...(calls.length ? { tool_calls: calls } : {}) };
  return {
    id: `chatcmpl-fake${n}`,
    object: "chat.completion",
    created: 1_767_225_600,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(spec) }],
    usage: { prompt_tokens: spec.usage?.input ?? input, completion_tokens: output, total_tokens: (spec.usage?.input ?? input) + output, prompt_tokens_details: { cached_tokens: spec.usage?.cached ?? 0 } },
  };
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const queue: Scenario[] = [];
  let defaultScenario: Scenario = DEFAULT_SCENARIO;
  let responder: Responder | undefined;
  let models: Record<string, unknown>[] = [{ id: "fake-model" }];
  let limit: { maximum: number; server: OverflowServer } | undefined;
  let replies = 0;
  let closing = false;
  const sockets = new Set<Socket>();
  const serverAbort = new AbortController();
  setMaxListeners(0, serverAbort.signal);
  const endWaiters = new Map<number, Array<(end: RequestEnd) => void>>();

  const markEnd = (index: number, how: RequestEndHow) => {
    const rec = requests[index];
    if (!rec || rec.end) return;
    rec.end = { how, at: Date.now() };
    for (const w of endWaiters.get(index) ?? []) w(rec.end);
    endWaiters.delete(index);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake server bug: ${String(err)}`, type: "server_error" } }));
      } else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    let body: Record<string, any> = {};
    try {
      const parsed: unknown = rawBody ? JSON.parse(rawBody) : {};
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, any>;
    } catch {
      // recorded as {}
    }
    const path = (req.url ?? "/").split("?")[0]!;
    const index = requests.length;
    const rec: RecordedRequest = { method: req.method ?? "", path, headers: req.headers, body, rawBody, time: Date.now() };
    requests.push(rec);

    const ac = new AbortController();
    const onServerAbort = () => ac.abort();
    serverAbort.signal.addEventListener("abort", onServerAbort, { once: true });
    let cut = false;
    res.on("close", () => {
      serverAbort.signal.removeEventListener("abort", onServerAbort);
      ac.abort();
      markEnd(index, res.writableFinished ? "completed" : cut ? "cut" : closing ? "server_closed" : "client_closed");
    });
    const cutNow = () => {
      cut = true;
      res.destroy();
    };
    const sendJson = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(payload);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-request-id": `req_fake_${index}`, ...headers });
      res.end(text);
    };
    const sendError = (s: HttpErrorScenario) => {
      const text = s.text ?? JSON.stringify(s.body ?? {});
      res.writeHead(s.status, { "content-type": s.text !== undefined ? "text/plain" : "application/json", "content-length": Buffer.byteLength(text), "x-request-id": `req_fake_${index}`, ...s.headers });
      res.end(text);
    };

    if (req.method === "GET" && path === "/v1/models") return sendJson(200, { object: "list", data: models.map((m) => ({ object: "model", created: 1_767_225_600, owned_by: "fake", ...m })) });
    const route = path === "/v1/chat/completions" ? "chat" : path === "/v1/responses" ? "responses" : undefined;
    if (req.method !== "POST" || !route) return sendJson(404, { error: { message: `Not found: ${req.method} ${path}`, type: "invalid_request_error", param: null, code: "not_found" } });

    const estimatedInput = estimateTokens(rawBody.length);
    if (limit) {
      const output = Number(body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? 0);
      const counted = limit.server === "vllm-max-tokens" || limit.server === "deepseek" ? estimatedInput + output : estimatedInput;
      if (counted > limit.maximum) return sendError(overflowError(limit.server, counted, limit.maximum, output));
    }
    const scenario = queue.shift() ?? responder?.(body, rec) ?? defaultScenario;
    rec.scenario = scenario;
    const n = ++replies;
    const model = typeof body.model === "string" ? body.model : "fake-model";

    const wait = abortableWait(ac.signal);
    const write = abortableWrite(res, ac.signal);
    const sseHead = (spec?: ReplySpec) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": `req_fake_${index}`, ...spec?.headers });
      res.flushHeaders();
    };
    const sendFrames = async (frames: string[], delayMs: number): Promise<boolean> => {
      for (const f of frames) if (!(await wait(delayMs)) || !(await write(f))) return false;
      return true;
    };
    const framesOf = (spec: ReplySpec): Frames => {
      const ctx = {
        n,
        model: spec.model ?? model,
        includeUsage: body.stream_options?.include_usage === true,
        includeEncrypted: Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content"),
        estimatedInput,
      };
      return route === "chat" ? chatFrames(spec, ctx) : responsesFrames(spec, ctx);
    };
    const partial = (spec: ReplySpec | undefined, afterFrames: number | undefined, fallback: (f: Frames) => number) => {
      const s = spec ?? PARTIAL_REPLY;
      const f = framesOf(s);
      return { s, frames: f.frames.slice(0, Math.max(0, afterFrames ?? fallback(f))) };
    };
    const hangUntilClosed = () => new Promise<void>((resolve) => (ac.signal.aborted ? resolve() : ac.signal.addEventListener("abort", () => resolve(), { once: true })));

    switch (scenario.kind) {
      case "http_error":
        return sendError(scenario);
      case "reply": {
        if (body.stream !== true) {
          if (route !== "chat") return sendJson(400, { error: { message: "the fake Responses route streams only", type: "invalid_request_error" } });
          if (!(await wait(scenario.delayMs ?? 0))) return;
          return sendJson(200, completionJson(scenario, n, scenario.model ?? model, estimatedInput), scenario.headers);
        }
        sseHead(scenario);
        if (!(await sendFrames(framesOf(scenario).frames, scenario.delayMs ?? 0))) return;
        res.end();
        return;
      }
      case "stream_error": {
        const p = partial(scenario.reply, scenario.afterFrames, (f) => f.terminal);
        sseHead(p.s);
        if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
        const e = scenario.error;
        let frame: string;
        if (route === "chat") frame = `data: ${JSON.stringify({ error: e })}\n\n`;
        else if (scenario.style === "failed") {
          const response = { id: `resp_fake${n}`, object: "response", status: "failed", model, output: [], error: { code: e.code ?? "server_error", message: e.message }, incomplete_details: null, usage: null };
          frame = `event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", response, sequence_number: p.frames.length })}\n\n`;
        } else frame = `event: error\ndata: ${JSON.stringify({ type: "error", code: e.code ?? null, message: e.message, param: null, sequence_number: p.frames.length })}\n\n`;
        if (!(await write(frame))) return;
        res.end();
        return;
      }
      case "cut": {
        if (scenario.beforeHeaders) return cutNow();
        const p = partial(scenario.reply, scenario.afterFrames, (f) => f.terminal);
        sseHead(p.s);
        if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
        if (scenario.clean) return void res.end();
        return cutNow();
      }
      case "endless": {
        sseHead();
        // the frames of a reply with an empty text: the head up to its first delta, the tail after
        const marker = "\u0000endless\u0000";
        const whole = framesOf({ content: [{ type: "text", text: marker }], chunkSize: marker.length }).frames;
        const at = whole.findIndex((f) => f.includes(JSON.stringify(marker).slice(1, -1)));
        const frame = whole[at]!;
        const parts = { head: whole.slice(0, at).join(""), frame: (d: string) => frame.replace(JSON.stringify(marker).slice(1, -1), JSON.stringify(d).slice(1, -1)), tail: whole.slice(at + 1).join("") };
        rec.streamed = 0;
        const result = await streamEndless(write, parts, scenario, (bytes) => (rec.streamed = bytes));
        if (!result.cutByClient) res.end();
        return;
      }
      case "hang": {
        if (!scenario.beforeHeaders) {
          const p = partial(scenario.reply, scenario.afterFrames, () => 0);
          sseHead(p.s);
          if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
        }
        await hangUntilClosed();
        return;
      }
    }
  }

  const endOf = (index: number) =>
    new Promise<RequestEnd>((resolve) => {
      const end = requests[index]?.end;
      if (end) return resolve(end);
      endWaiters.set(index, [...(endWaiters.get(index) ?? []), resolve]);
    });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    enqueue: (...scenarios) => void queue.push(...scenarios),
    setDefault: (scenario) => void (defaultScenario = scenario),
    setResponder: (fn) => void (responder = fn),
    remaining: () => queue.length,
    setModels: (list) => void (models = list),
    setContextLimit: (maximum, server = "openai") => void (limit = maximum === undefined ? undefined : { maximum, server }),
    whenEnded: endOf,
    close: async () => {
      if (closing) return;
      closing = true;
      serverAbort.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
      await Promise.all(requests.map((r, i) => (r.end ? undefined : endOf(i))));
    },
  };
}
