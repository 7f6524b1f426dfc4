// What a failed Ollama call means, in pith's error classes. Ollama answers errors as
// `{"error": "<text>"}` with an HTTP status before the stream starts, and as a `{"error": ...}`
// line once it has started (the status is 200 by then). The texts below are Ollama's own
// (ollama/ollama server/routes.go, llm/llama_server.go, runner/ollamarunner/runner.go, docs/api/errors.mdx).
import { isOverflowText, overflowSizes, retryAfterMs } from "./anthropic-errors.js";
import { ProviderError, type OverflowSizes } from "./types.js";

/** Overflow as Ollama words it, beyond the forms every server shares (errors.ts). */
const OLLAMA_OVERFLOW = [
  // runner with truncate: false (v0.12 and later): 400
  /input length exceeds the context length/i,
  // llama-server runner (2026) when the prompt does not fit and context shift is off: 400
  /prompt is longer than the context length/i,
  // the MLX runner
  /exceeds the model's maximum context length/i,
  /exceeds maximum context length/i,
];

function isOllamaOverflow(text: string): boolean {
  return isOverflowText(text) || OLLAMA_OVERFLOW.some((p) => p.test(text));
}

const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);

/**
 * The sizes an Ollama overflow names. Ollama passes llama-server's error body through as text:
 * `{"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}}`.
 */
function ollamaOverflowSizes(text: string): OverflowSizes | undefined {
  const start = text.indexOf("{");
  if (start !== -1) {
    try {
      const inner = JSON.parse(text.slice(start)) as { error?: { n_prompt_tokens?: unknown; n_ctx?: unknown } };
      const tokens = int(inner.error?.n_prompt_tokens);
      const maximum = int(inner.error?.n_ctx);
      if (tokens || maximum) return { ...(tokens ? { tokens } : {}), ...(maximum ? { maximum } : {}) };
    } catch {
      // not JSON after all: read the words
    }
  }
  const m = /\((\d+) tokens\) exceeds the (?:available context size|model's maximum context length) \((\d+) tokens\)/i.exec(text);
  if (m) return { tokens: Number(m[1]), maximum: Number(m[2]) };
  return overflowSizes(text);
}

/** The message Ollama put in an error body (`{"error": "..."}`), or the body itself. */
export function ollamaErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === "string" && parsed.error) return parsed.error;
    if (parsed.error && typeof parsed.error === "object") {
      const msg = (parsed.error as { message?: unknown }).message;
      if (typeof msg === "string" && msg) return msg;
    }
  } catch {
    // a proxy's HTML page or plain text: use it as it is
  }
  return body.trim().slice(0, 2000) || "(empty body)";
}

export interface OllamaErrorContext {
  baseURL: string;
  model: string;
}

/** Classifies an HTTP error answer from /api/chat. */
export function classifyOllamaHttpError(status: number, body: string, ctx: OllamaErrorContext, headers?: Headers): ProviderError {
  const text = ollamaErrorText(body);
  const base = { status, message: `Ollama: ${text}` };
  if ((status === 400 || status === 413 || status === 500) && isOllamaOverflow(text)) {
    return new ProviderError({ ...base, errorClass: "overflow", type: "context_length_exceeded", overflow: ollamaOverflowSizes(text) });
  }
  if (status === 404 && /not found/i.test(text)) {
    return new ProviderError({
      ...base,
      errorClass: "fatal",
      type: "model_not_found",
      message: `Ollama at ${ctx.baseURL} does not have the model "${ctx.model}": run \`ollama pull ${ctx.model}\` (${text})`,
    });
  }
  if (status === 401 || status === 403) return new ProviderError({ ...base, errorClass: "auth" });
  if (status === 400 && /does not support (thinking|tools|chat)/i.test(text)) {
    const what = /does not support (\w+)/i.exec(text)![1].toLowerCase();
    return new ProviderError({ ...base, errorClass: "fatal", type: `${what}_unsupported` });
  }
  // "model requires more system memory (...) than is available (...)": a retry cannot help
  if (/requires more system memory|out of memory|insufficient memory/i.test(text)) return new ProviderError({ ...base, errorClass: "fatal", type: "out_of_memory" });
  if (status === 408 || status === 429 || status === 499 || status >= 500) {
    return new ProviderError({ ...base, errorClass: "transient", retryAfterMs: retryAfterMs(headers) });
  }
  return new ProviderError({ ...base, errorClass: "fatal" });
}

/** Classifies an `{"error": ...}` line sent after the stream began. */
export function classifyOllamaStreamError(line: { error?: unknown; status?: unknown }): ProviderError {
  const text = typeof line.error === "string" ? line.error : JSON.stringify(line.error);
  const status = typeof line.status === "number" ? line.status : undefined;
  if (isOllamaOverflow(text)) return new ProviderError({ status, errorClass: "overflow", type: "context_length_exceeded", message: `Ollama: ${text}`, overflow: ollamaOverflowSizes(text) });
  if (/requires more system memory|out of memory/i.test(text)) return new ProviderError({ status, errorClass: "fatal", type: "out_of_memory", message: `Ollama: ${text}` });
  // the runner failed while generating ("an error was encountered while running the model",
  // "model runner has unexpectedly stopped"): another attempt usually works
  return new ProviderError({ status, errorClass: "transient", message: `Ollama: ${text}` });
}
