// The Ollama provider: Ollama's native POST /api/chat, streamed as NDJSON, through Node's fetch.
// The native API, not Ollama's OpenAI-compatible one, because only here can pith set the window
// (`options.num_ctx`) and ask for an error instead of a prompt silently cut from the front
// (`truncate: false`): the compatible endpoint truncates to the server's default window and an
// agent never learns that its context was lost. No retries here: retrying is the session host's
// decision, made from the error class.
import type { Logger } from "pino";
import { classifyError } from "./anthropic-errors.js";
import { UNREACHABLE } from "./error-patterns.js";
import { readLineBatches } from "./ndjson.js";
import { buildOllamaRequest, type OllamaChatRequest } from "./ollama-convert.js";
import { classifyOllamaHttpError } from "./ollama-errors.js";
import { OllamaLineReader, promptUsage, type ChatLine } from "./ollama-stream.js";
import { PartialMessage } from "./partial.js";
import { ProviderError, type Provider, type StreamEvent, type StreamRequest } from "./types.js";
import { makeUsage } from "./usage.js";

const OLLAMA_DEFAULT_URL = "http://127.0.0.1:11434";

export interface OllamaOptions {
  /** the provider's name in model names ("box" in "box/qwen3:8b"); default "ollama" */
  name?: string;
  /** where Ollama listens, without /api; default http://127.0.0.1:11434 */
  baseURL?: string;
  /** sent as a bearer token (Ollama behind a proxy that wants one, or ollama.com) */
  apiKey?: string;
  /** more headers for every request */
  headers?: Record<string, string>;
  logger?: Logger;
  /** abort a stream that sends nothing for this long once it has started (a hung connection) */
  idleTimeoutMs?: number;
  /**
   * how long the first line may take: Ollama answers only once the model is loaded and the whole
   * prompt evaluated, which takes minutes for a long prompt on a CPU. (Node's fetch gives up on
   * headers after 300 s whatever this says.)
   */
  firstLineTimeoutMs?: number;
}

export class OllamaProvider implements Provider {
  readonly name: string;
  readonly baseURL: string;
  private readonly headers: Record<string, string>;
  private readonly idleTimeoutMs: number;
  private readonly firstLineTimeoutMs: number;
  private readonly log?: Logger;

  constructor(options: OllamaOptions = {}) {
    this.name = options.name ?? "ollama";
    this.baseURL = (options.baseURL ?? OLLAMA_DEFAULT_URL).replace(/\/+$/, "");
    this.log = options.logger;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.firstLineTimeoutMs = Math.max(options.firstLineTimeoutMs ?? 300_000, this.idleTimeoutMs);
    this.headers = { "content-type": "application/json", accept: "application/x-ndjson", ...options.headers };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
  }

  /** The request body for a stream call (exposed for tests). */
  buildBody(request: StreamRequest): OllamaChatRequest {
    const { body, notes } = buildOllamaRequest(request);
    for (const note of notes) this.log?.warn({ model: request.model.id, provider: this.name }, `request repaired: ${note}`);
    return body;
  }

  async *stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
    const partial = new PartialMessage(request.model, "ollama-chat");
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal.addEventListener("abort", onAbort, { once: true });
    if (request.signal.aborted) controller.abort();
    // a stall check a few times per period, instead of re-arming a timer on every line
    let lastLine = Date.now();
    let started = false;
    let stalledFor = 0;
    const idle = setInterval(
      () => {
        const limit = started ? this.idleTimeoutMs : this.firstLineTimeoutMs;
        if (Date.now() - lastLine < limit) return;
        stalledFor = limit;
        controller.abort();
      },
      Math.max(10, Math.floor(this.idleTimeoutMs / 4)),
    );
    const usage = { input: 0, output: 0, cacheRead: 0 };
    const reader = new OllamaLineReader(partial);
    let doneLine: ChatLine | undefined;
    try {
      const body = this.buildBody(request);
      yield partial.start();
      const res = await fetch(`${this.baseURL}/api/chat`, { method: "POST", headers: this.headers, body: JSON.stringify(body), signal: controller.signal });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => "");
        throw classifyOllamaHttpError(res.status, text, { baseURL: this.baseURL, model: request.model.id }, res.headers);
      }
      for await (const batch of readLineBatches(res.body)) {
        lastLine = Date.now();
        started = true;
        const { events, error, done } = reader.read(batch);
        for (const ev of events) yield ev;
        if (error) throw error;
        if (done) {
          doneLine = done;
          break;
        }
      }
      if (!doneLine) throw new ProviderError({ errorClass: "transient", message: "Ollama's stream ended before its final line (done: true)" });
      Object.assign(usage, promptUsage(doneLine));
      usage.output = typeof doneLine.eval_count === "number" && doneLine.eval_count > 0 ? doneLine.eval_count : 0;
      partial.message.usage = makeUsage(usage, request.model.pricing);
      partial.message.stopReason = reader.sawToolCall ? "toolUse" : doneLine.done_reason === "length" ? "length" : "stop";
      yield partial.done();
    } catch (err) {
      partial.message.usage = makeUsage(usage, request.model.pricing);
      yield partial.fail(this.classify(err, request.signal, stalledFor, started));
    } finally {
      clearInterval(idle);
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  private classify(err: unknown, signal: AbortSignal, stalledFor: number, started: boolean): ProviderError {
    if (err instanceof ProviderError) return err;
    if (stalledFor > 0 && !signal.aborted) {
      const what = started ? "no data from Ollama" : "no answer from Ollama (loading the model and reading the prompt)";
      return new ProviderError({ errorClass: "transient", message: `${what} for ${Math.round(stalledFor / 1000)} s` }, { cause: err });
    }
    const e = classifyError(err, signal);
    if (e.errorClass === "transient" && !started && /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN/.test(e.message)) {
      return new ProviderError({ errorClass: "transient", type: UNREACHABLE, message: `cannot reach Ollama at ${this.baseURL}: is Ollama running? (${e.message})` }, { cause: err });
    }
    return e;
  }
}
