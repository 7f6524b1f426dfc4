// A fake Anthropic Messages API on 127.0.0.1 for provider tests: the real @anthropic-ai/sdk talks
// to it over HTTP and gets real SSE frames, so nothing in a test reaches the network.
//
//   const server = await startFakeAnthropic();
//   const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0, logger: silentLogger });
//   server.enqueue(textReply("hello"), overloaded({ retryAfter: 3 }));
//   ... two client.messages.stream(...) calls get the reply, then a 529 ...
//   server.requests[0].body.system   // what the client sent
//   await server.close();
//
// Routes: POST /v1/messages (body `stream: true` -> SSE, otherwise one JSON message),
// POST /v1/messages/count_tokens -> {"input_tokens": n}, anything else -> 404 in the error shape.
//
// Scenarios are plain data. Each POST /v1/messages takes the next one from the queue (`enqueue`),
// or the default (`setDefault`; initially a short text reply "ok") when the queue is empty.
// Helpers that build them are in ./fake-anthropic-scenarios.ts (re-exported here).
//
// - A reply: { kind: "reply", content: [...blocks], stopReason?, usage?, ... }
//     blocks: { type: "text", text }
//             { type: "thinking", thinking, signature }          (thinking_delta*, then one signature_delta)
//             { type: "redacted_thinking", data }                (start + stop, no deltas)
//             { type: "tool_use", name, input, id? }             (input as JSON.stringify(input) cut into
//                                                                 input_json_delta chunks, after an empty one
//                                                                 as the real API sends)
//     each block may set chunkSize (text/thinking: code points per delta; tool_use: chars per delta);
//     scenario chunkSize (default 8) and jsonChunkSize (default 16) apply otherwise.
//     stopReason: default "tool_use" when a tool_use block is present, else "end_turn".
//     usage: final totals {input_tokens, output_tokens, cache_creation_input_tokens,
//       cache_read_input_tokens} (defaults: input estimated from the request body, output from the
//       content length, cache fields 0). message_start carries the input and cache fields with
//       output_tokens 1; message_delta carries all four (the SDK replaces the fields it finds there).
//       startUsage / deltaUsage override exactly what the two frames carry, e.g. to test that a field
//       missing from message_delta keeps its message_start value.
//     id (default msg_fake_<n>), model (default: echoes the request's model), stopSequence,
//     delayMs (sleep before every frame after the headers), pings (ping frames right after
//     message_start, default 1), pingEvery (one more ping after every n later frames),
//     headers (extra response headers), requestId (the request-id header, default req_fake_<n>).
//     Non-streaming requests get the same reply as one JSON message.
// - An HTTP error: { kind: "http_error", status, type, message, headers?, requestId? } ->
//     {"type":"error","error":{"type":type,"message":message},"request_id":...}. Helpers:
//     promptTooLong(), overloaded(), rateLimited(), serverError(), authError(), permissionError(),
//     badRequest(), httpError().
// - A mid-stream error: { kind: "stream_error", reply?, afterFrames?, error? } -> the first
//     afterFrames frames of `reply` (default: every frame before message_delta), then
//     `event: error` / data {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}
//     and the response ends. (A non-streaming request gets the error as an HTTP status instead.)
// - A cut connection: { kind: "cut", reply?, afterFrames?, beforeHeaders? } -> frames as above, then
//     the socket is destroyed; beforeHeaders: destroyed before any response byte.
// - A hang: { kind: "hang", reply?, afterFrames?, beforeHeaders? } -> headers (and afterFrames frames,
//     default 0) then nothing until the client goes away or close(). beforeHeaders: not even headers.
//
// - An endless reply: { kind: "endless", block, delta?, perWrite?, maxBytes? } -> message_start, then
//     one block (text: text_delta, thinking: thinking_delta, tool_use "bash": input_json_delta
//     inside {"command":"...) whose deltas never end until the client closes the connection; past
//     maxBytes (a safety stop, default 256 MiB) the reply ends normally. The request's `streamed`
//     counts the delta bytes sent (endless-stream.ts).
//
// A reply or an HTTP error may set holdUntil (a promise): nothing of it is sent, not even the
// headers, until the promise settles (or the client goes away), so a test can hold a request
// (a summarizer's, say) exactly as long as it needs the daemon to be waiting on it.
//
// Every request is recorded (`requests`) before it is answered; `whenEnded(i)` resolves when the
// i-th request's connection is done, saying how (completed / client_closed / cut / server_closed).
// close() destroys hung connections and cancels pending delays, so no timer outlives the server.
import { setMaxListeners } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { abortableWait, abortableWrite } from "./abortable-io.js";
import { chunkCodePoints } from "./chunks.js";
import { streamEndless, type EndlessOptions } from "./endless-stream.js";

export * from "./fake-anthropic-scenarios.js";

type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "model_context_window_exceeded"
  | "stop_sequence"
  | "pause_turn"
  | "refusal";

export type FakeBlock =
  | { type: "text"; text: string; chunkSize?: number }
  | { type: "thinking"; thinking: string; signature: string; chunkSize?: number }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; name: string; input: unknown; id?: string; chunkSize?: number };

interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface ReplySpec {
  content: FakeBlock[];
  stopReason?: StopReason;
  stopSequence?: string | null;
  /** final totals; missing fields get defaults (see the header comment) */
  usage?: Partial<FakeUsage>;
  /** exactly the usage object of message_start (default: input + cache fields, output_tokens 1) */
  startUsage?: Record<string, unknown>;
  /** exactly the usage object of message_delta (default: all four fields of `usage`); needs output_tokens */
  deltaUsage?: Partial<FakeUsage> & { output_tokens: number };
  id?: string;
  model?: string;
  /** code points per text/thinking delta (default 8) */
  chunkSize?: number;
  /** characters per input_json_delta (default 16) */
  jsonChunkSize?: number;
  /** ms to wait before each frame (default 0) */
  delayMs?: number;
  /** ping frames right after message_start (default 1) */
  pings?: number;
  /** also a ping after every n frames past the first pings */
  pingEvery?: number;
  headers?: Record<string, string>;
  requestId?: string;
  /** nothing is sent until this settles (see the header comment) */
  holdUntil?: Promise<unknown>;
}

export interface ReplyScenario extends ReplySpec {
  kind: "reply";
}

export interface HttpErrorScenario {
  kind: "http_error";
  status: number;
  /** the Anthropic error type, e.g. "overloaded_error" */
  type: string;
  message: string;
  headers?: Record<string, string>;
  requestId?: string;
  /** nothing is sent until this settles (see the header comment) */
  holdUntil?: Promise<unknown>;
}

export interface StreamErrorScenario {
  kind: "stream_error";
  reply?: ReplySpec;
  /** frames of `reply` sent before the error (default: all before message_delta) */
  afterFrames?: number;
  /** default {type: "overloaded_error", message: "Overloaded"} */
  error?: { type: string; message: string };
}

export interface CutScenario {
  kind: "cut";
  reply?: ReplySpec;
  /** frames of `reply` sent before the cut (default: all before message_delta) */
  afterFrames?: number;
  /** destroy the socket before sending any response byte */
  beforeHeaders?: boolean;
}

export interface HangScenario {
  kind: "hang";
  reply?: ReplySpec;
  /** frames of `reply` sent before hanging (default 0: headers only) */
  afterFrames?: number;
  /** send nothing at all, not even headers */
  beforeHeaders?: boolean;
}

export interface EndlessScenario extends EndlessOptions {
  kind: "endless";
  /** what streams for ever: text, thinking, or a tool call's arguments */
  block: "text" | "thinking" | "tool_use";
}

export type Scenario = ReplyScenario | HttpErrorScenario | StreamErrorScenario | CutScenario | HangScenario | EndlessScenario;

/** an answer for POST /v1/messages/count_tokens: a number of tokens, or an HTTP error */
type CountTokensScript = number | HttpErrorScenario;

type RequestEndHow =
  /** the whole response was sent */
  | "completed"
  /** the client closed the connection before the response was complete */
  | "client_closed"
  /** the scenario destroyed the socket */
  | "cut"
  /** close() ended it */
  | "server_closed";

interface RequestEnd {
  how: RequestEndHow;
  at: number;
}

export interface RecordedRequest {
  method: string;
  /** the path without the query, e.g. "/v1/messages" */
  path: string;
  /** the raw request target, with the query */
  url: string;
  /** lower-cased header names, as node gives them */
  headers: IncomingHttpHeaders;
  /** the parsed JSON body ({} when there is none or it is not JSON) */
  body: Record<string, any>;
  rawBody: string;
  /** Date.now() when the request arrived */
  time: number;
  /** the scenario that answered it (for /v1/messages) */
  scenario?: Scenario;
  /** set when the connection is done */
  end?: RequestEnd;
  /** an endless scenario: bytes of delta text sent so far */
  streamed?: number;
}

export interface FakeAnthropic {
  /** base URL for the SDK's `baseURL`, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** queue scenarios, one per POST /v1/messages, in order */
  enqueue(...scenarios: Scenario[]): void;
  /** the scenario used when the queue is empty */
  setDefault(scenario: Scenario): void;
  /** queue count_tokens answers (otherwise: ceil(body length / 4)) */
  enqueueCountTokens(...answers: CountTokensScript[]): void;
  /** scenarios still queued */
  remaining(): number;
  /**
   * enforce a context window like a real endpoint (a proxy, a plan limit): a request whose input
   * (estimated from its body, 4 characters a token) is over `tokens` gets 400 "prompt is too long:
   * N tokens > M maximum" without using a scenario. undefined: no limit.
   */
  setMaxInputTokens(tokens: number | undefined): void;
  /** resolves when the i-th recorded request's connection is done (waits for it to arrive) */
  whenEnded(index: number): Promise<RequestEnd>;
  /** ends every connection (hung ones included), cancels delays, stops listening */
  close(): Promise<void>;
}

interface Frame {
  event: string;
  data: unknown;
}

const DEFAULT_SCENARIO: ReplyScenario = { kind: "reply", content: [{ type: "text", text: "ok" }] };

function frameText(frame: Frame): string {
  return `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

function errorBody(type: string, message: string, requestId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { type: "error", error: { type, message } };
  if (requestId) body.request_id = requestId;
  return body;
}

function chunkChars(text: string, size: number): string[] {
  const n = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
}

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

function contentChars(blocks: FakeBlock[]): number {
  let n = 0;
  for (const b of blocks) {
    if (b.type === "text") n += b.text.length;
    else if (b.type === "thinking") n += b.thinking.length;
    else if (b.type === "redacted_thinking") n += b.data.length;
    else n += b.name.length + JSON.stringify(b.input ?? {}).length;
  }
  return n;
}

interface Resolved {
  id: string;
  model: string;
  usage: FakeUsage;
  stopReason: StopReason;
  content: Array<Record<string, unknown>>;
}

function resolveReply(spec: ReplySpec, n: number, request: RecordedRequest): Resolved {
  const model = spec.model ?? (typeof request.body.model === "string" ? request.body.model : "claude-fake");
  let toolN = 0;
  const content = spec.content.map((b): Record<string, unknown> => {
    switch (b.type) {
      case "text":
        return { type: "text", text: b.text };
      case "thinking":
        return { type: "thinking", thinking: b.thinking, signature: b.signature };
      case "redacted_thinking":
        return { type: "redacted_thinking", data: b.data };
      case "tool_use":
        return { type: "tool_use", id: b.id ?? `toolu_fake_${n}_${toolN++}`, name: b.name, input: b.input };
    }
  });
  const usage: FakeUsage = {
    input_tokens: spec.usage?.input_tokens ?? estimateTokens(request.rawBody.length),
    output_tokens: spec.usage?.output_tokens ?? estimateTokens(contentChars(spec.content)),
    cache_creation_input_tokens: spec.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: spec.usage?.cache_read_input_tokens ?? 0,
  };
  const stopReason = spec.stopReason ?? (spec.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  return { id: spec.id ?? `msg_fake_${n}`, model, usage, stopReason, content };
}

/** the SSE frames of a reply, exactly in the order the real API sends them */
function replyFrames(spec: ReplySpec, r: Resolved): Frame[] {
  const frames: Frame[] = [];
  const startUsage = spec.startUsage ?? {
    input_tokens: r.usage.input_tokens,
    cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
    cache_read_input_tokens: r.usage.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: r.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: 1,
    service_tier: "standard",
  };
  frames.push({
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: r.id,
        type: "message",
        role: "assistant",
        model: r.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    },
  });
  for (let i = 0; i < (spec.pings ?? 1); i++) frames.push({ event: "ping", data: { type: "ping" } });
  const textChunk = spec.chunkSize ?? 8;
  const jsonChunk = spec.jsonChunkSize ?? 16;
  spec.content.forEach((b, index) => {
    const delta = (d: Record<string, unknown>) => frames.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: d } });
    const start = (block: Record<string, unknown>) => frames.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: block } });
    switch (b.type) {
      case "text":
        start({ type: "text", text: "" });
        for (const t of chunkCodePoints(b.text, b.chunkSize ?? textChunk)) delta({ type: "text_delta", text: t });
        break;
      case "thinking":
        start({ type: "thinking", thinking: "", signature: "" });
        for (const t of chunkCodePoints(b.thinking, b.chunkSize ?? textChunk)) delta({ type: "thinking_delta", thinking: t });
        delta({ type: "signature_delta", signature: b.signature });
        break;
      case "redacted_thinking":
        start({ type: "redacted_thinking", data: b.data });
        break;
      case "tool_use": {
        const block = r.content[index] as { id: string };
        start({ type: "tool_use", id: block.id, name: b.name, input: {} });
        delta({ type: "input_json_delta", partial_json: "" });
        for (const t of chunkChars(JSON.stringify(b.input ?? {}), b.chunkSize ?? jsonChunk)) delta({ type: "input_json_delta", partial_json: t });
        break;
      }
    }
    frames.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  const deltaUsage = spec.deltaUsage ?? { ...r.usage };
  frames.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: r.stopReason, stop_sequence: spec.stopSequence ?? null }, usage: deltaUsage },
  });
  frames.push({ event: "message_stop", data: { type: "message_stop" } });
  if (spec.pingEvery && spec.pingEvery > 0) {
    const head = frames.slice(0, 1 + (spec.pings ?? 1));
    const rest = frames.slice(head.length);
    const out = [...head];
    rest.forEach((f, i) => {
      out.push(f);
      if ((i + 1) % spec.pingEvery! === 0 && i < rest.length - 1) out.push({ event: "ping", data: { type: "ping" } });
    });
    return out;
  }
  return frames;
}

function jsonMessage(spec: ReplySpec, r: Resolved): Record<string, unknown> {
  return {
    id: r.id,
    type: "message",
    role: "assistant",
    model: r.model,
    content: r.content,
    stop_reason: r.stopReason,
    stop_sequence: spec.stopSequence ?? null,
    usage: {
      input_tokens: r.usage.input_tokens,
      cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
      cache_read_input_tokens: r.usage.cache_read_input_tokens,
      cache_creation: { ephemeral_5m_input_tokens: r.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
      output_tokens: r.usage.output_tokens,
      service_tier: "standard",
    },
  };
}

const STATUS_FOR_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** the default partial reply for stream_error / cut / hang */
const PARTIAL_REPLY: ReplySpec = { content: [{ type: "text", text: "partial answer before trouble" }] };

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const queue: Scenario[] = [];
  const countQueue: CountTokensScript[] = [];
  let defaultScenario: Scenario = DEFAULT_SCENARIO;
  let maxInputTokens: number | undefined;
  let messageCount = 0;
  let requestCount = 0;
  let closing = false;
  const sockets = new Set<Socket>();
  /** aborted when close() runs: cancels every pending sleep */
  const serverAbort = new AbortController();
  setMaxListeners(0, serverAbort.signal); // one listener per in-flight request
  const endWaiters = new Map<number, Array<(end: RequestEnd) => void>>();

  const markEnd = (index: number, how: RequestEndHow) => {
    const rec = requests[index];
    if (!rec || rec.end) return;
    rec.end = { how, at: Date.now() };
    const waiters = endWaiters.get(index) ?? [];
    endWaiters.delete(index);
    for (const w of waiters) w(rec.end);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // a bug in the fake itself: make it loud in the response rather than hanging the test
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify(errorBody("api_error", `fake server bug: ${String(err)}`)));
      } else {
        res.destroy();
      }
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
    const time = Date.now();
    const rawBody = await readBody(req);
    let body: Record<string, any> = {};
    let bodyOk = rawBody.length === 0;
    if (rawBody.length) {
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          body = parsed as Record<string, any>;
          bodyOk = true;
        }
      } catch {
        // recorded as {} and answered 400 below
      }
    }
    const rawUrl = req.url ?? "/";
    const path = rawUrl.split("?")[0]!;
    const index = requests.length;
    const rec: RecordedRequest = { method: req.method ?? "", path, url: rawUrl, headers: req.headers, body, rawBody, time };
    requests.push(rec);
    const n = ++requestCount;

    // one signal per request: the client went away, or the server is closing
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
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    const sendError = (s: HttpErrorScenario) => {
      const requestId = s.requestId ?? `req_fake_${n}`;
      sendJson(s.status, errorBody(s.type, s.message, requestId), { "request-id": requestId, ...s.headers });
    };

    if (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
      sendError({ kind: "http_error", status: 404, type: "not_found_error", message: `Not found: ${req.method} ${path}` });
      return;
    }
    if (!bodyOk) {
      sendError({ kind: "http_error", status: 400, type: "invalid_request_error", message: "request body is not a JSON object" });
      return;
    }

    if (path === "/v1/messages/count_tokens") {
      const answer = countQueue.shift() ?? estimateTokens(rawBody.length);
      if (typeof answer === "number") sendJson(200, { input_tokens: answer }, { "request-id": `req_fake_${n}` });
      else sendError(answer);
      return;
    }

    if (maxInputTokens !== undefined && estimateTokens(rawBody.length) > maxInputTokens) {
      sendError({ kind: "http_error", status: 400, type: "invalid_request_error", message: `prompt is too long: ${estimateTokens(rawBody.length)} tokens > ${maxInputTokens} maximum` });
      return;
    }
    const scenario = queue.shift() ?? defaultScenario;
    rec.scenario = scenario;
    const m = ++messageCount;
    const streaming = body.stream === true;

    const wait = abortableWait(ac.signal);
    const write = abortableWrite(res, ac.signal);
    const sseHead = (spec: ReplySpec | undefined) => {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "request-id": spec?.requestId ?? `req_fake_${n}`,
        ...spec?.headers,
      });
      res.flushHeaders();
    };
    /** sends frames with the spec's delay; false if the connection went away */
    const sendFrames = async (frames: Frame[], delayMs: number): Promise<boolean> => {
      for (const f of frames) {
        if (!(await wait(delayMs))) return false;
        if (!(await write(frameText(f)))) return false;
      }
      return true;
    };
    const hangUntilClosed = () =>
      new Promise<void>((resolve) => {
        if (ac.signal.aborted) return resolve();
        ac.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    const partial = (spec: ReplySpec | undefined, afterFrames: number | undefined, defaultCount: (frames: Frame[]) => number) => {
      const s = spec ?? PARTIAL_REPLY;
      const r = resolveReply(s, m, rec);
      const frames = replyFrames(s, r);
      const count = afterFrames ?? defaultCount(frames);
      return { s, r, frames: frames.slice(0, Math.max(0, count)) };
    };
    const beforeMessageDelta = (frames: Frame[]) => frames.findIndex((f) => f.event === "message_delta");
    const held = (scenario.kind === "reply" || scenario.kind === "http_error") && scenario.holdUntil;
    if (held && !(await Promise.race([held.then(() => true, () => true), hangUntilClosed().then(() => false)]))) return;

    switch (scenario.kind) {
      case "http_error":
        sendError(scenario);
        return;

      case "reply": {
        const r = resolveReply(scenario, m, rec);
        if (!streaming) {
          if (!(await wait(scenario.delayMs ?? 0))) return;
          sendJson(200, jsonMessage(scenario, r), { "request-id": scenario.requestId ?? `req_fake_${n}`, ...scenario.headers });
          return;
        }
        sseHead(scenario);
        if (!(await sendFrames(replyFrames(scenario, r), scenario.delayMs ?? 0))) return;
        res.end();
        return;
      }

      case "stream_error": {
        const error = scenario.error ?? { type: "overloaded_error", message: "Overloaded" };
        if (!streaming) {
          sendError({ kind: "http_error", status: STATUS_FOR_ERROR_TYPE[error.type] ?? 500, type: error.type, message: error.message });
          return;
        }
        const p = partial(scenario.reply, scenario.afterFrames, beforeMessageDelta);
        sseHead(p.s);
        if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
        if (!(await wait(p.s.delayMs ?? 0))) return;
        if (!(await write(frameText({ event: "error", data: { type: "error", error } })))) return;
        res.end();
        return;
      }

      case "cut": {
        if (scenario.beforeHeaders) return cutNow();
        if (!streaming) {
          const r = resolveReply(scenario.reply ?? PARTIAL_REPLY, m, rec);
          const text = JSON.stringify(jsonMessage(scenario.reply ?? PARTIAL_REPLY, r));
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "request-id": `req_fake_${n}` });
          await write(text.slice(0, Math.floor(text.length / 2)));
          return cutNow();
        }
        const p = partial(scenario.reply, scenario.afterFrames, beforeMessageDelta);
        sseHead(p.s);
        if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
        return cutNow();
      }

      case "endless": {
        sseHead(undefined);
        const r = resolveReply({ content: [] }, m, rec);
        const head = replyFrames({ content: [] }, r).slice(0, 2);
        const block = scenario.block;
        const start =
          block === "text" ? { type: "text", text: "" } : block === "thinking" ? { type: "thinking", thinking: "", signature: "" } : { type: "tool_use", id: `toolu_fake_${m}_0`, name: "bash", input: {} };
        head.push({ event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: start } });
        if (block === "tool_use") head.push({ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"command":"' } } });
        const delta = (d: string) =>
          block === "text" ? { type: "text_delta", text: d } : block === "thinking" ? { type: "thinking_delta", thinking: d } : { type: "input_json_delta", partial_json: d };
        const tail: Frame[] = [
          ...(block === "tool_use" ? [{ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"}' } } }] : []),
          ...(block === "thinking" ? [{ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-endless" } } }] : []),
          { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
          { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: block === "tool_use" ? "tool_use" : "end_turn", stop_sequence: null }, usage: { ...r.usage } } },
          { event: "message_stop", data: { type: "message_stop" } },
        ];
        rec.streamed = 0;
        const parts = { head: head.map(frameText).join(""), frame: (d: string) => frameText({ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: delta(d) } }), tail: tail.map(frameText).join("") };
        const result = await streamEndless(write, parts, scenario, (n) => (rec.streamed = n));
        if (!result.cutByClient) res.end();
        return;
      }

      case "hang": {
        if (!scenario.beforeHeaders) {
          if (!streaming) {
            res.writeHead(200, { "content-type": "application/json", "request-id": `req_fake_${n}` });
            res.flushHeaders();
          } else {
            const p = partial(scenario.reply, scenario.afterFrames, () => 0);
            sseHead(p.s);
            if (!(await sendFrames(p.frames, p.s.delayMs ?? 0))) return;
          }
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
      const list = endWaiters.get(index) ?? [];
      list.push(resolve);
      endWaiters.set(index, list);
    });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...scenarios) => void queue.push(...scenarios),
    setDefault: (scenario) => void (defaultScenario = scenario),
    enqueueCountTokens: (...answers) => void countQueue.push(...answers),
    remaining: () => queue.length,
    setMaxInputTokens: (tokens) => void (maxInputTokens = tokens),
    whenEnded: endOf,
    close: async () => {
      if (closing) return;
      closing = true;
      serverAbort.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
      // every response's "close" has run by now or runs on the next turns: wait for all the ends
      await Promise.all(requests.map((r, i) => (r.end ? undefined : endOf(i))));
    },
  };
}
