// The SSE frames of a fake reply, the way the real servers stream them (see fake-openai.ts).
// Chat Completions: `data: {chunk}\n\n` lines, then `data: [DONE]`; the first chunk carries the
// role, tool calls start with {index, id, type, function: {name, arguments: ""}} and their
// arguments follow in pieces keyed by index; usage (only when the request asked with
// stream_options.include_usage) in a last chunk with empty choices, or on the finish chunk as
// llama.cpp sends it. Responses API: `event: <type>\ndata: {...}\n\n`, every event with a
// sequence_number; items open with response.output_item.added and close with
// response.output_item.done; the stream ends with response.completed or response.incomplete.
import { chunkCodePoints } from "./chunks.js";

export type FakeBlock =
  | { type: "text"; text: string; chunkSize?: number }
  /** reasoning text; on the Responses route a reasoning item whose summary is the text */
  | { type: "reasoning"; text: string; chunkSize?: number; encrypted?: string }
  /** arguments: an object (sent as its JSON) or a raw string (sent as is, even if not JSON) */
  | { type: "tool_call"; name: string; arguments: unknown; id?: string; chunkSize?: number };

interface FakeUsage {
  /** prompt tokens, cached ones included (OpenAI's prompt_tokens / input_tokens) */
  input?: number;
  output?: number;
  /** cached prompt tokens */
  cached?: number;
}

export interface ReplySpec {
  content: FakeBlock[];
  /** default: tool_calls when a tool call is present, else stop (Responses: length -> incomplete max_output_tokens) */
  finish?: "stop" | "length" | "tool_calls" | "content_filter";
  usage?: FakeUsage;
  model?: string;
  /** code points per text/reasoning delta (default 8) */
  chunkSize?: number;
  /** characters per tool-argument delta (default 16) */
  argsChunkSize?: number;
  /** ms before each frame (default 0) */
  delayMs?: number;
  headers?: Record<string, string>;
  // -- Chat Completions: how servers differ --
  /** the delta field reasoning streams in (default reasoning_content: DeepSeek, vLLM, llama.cpp; OpenRouter, Groq, Ollama: reasoning) */
  reasoningField?: "reasoning_content" | "reasoning";
  /** the arguments of several calls alternate chunk by chunk (default: one call after the other) */
  interleaveToolCalls?: boolean;
  /** each call in one chunk, arguments whole (Ollama's compatible endpoint) */
  toolCallsWhole?: boolean;
  /** tool-call deltas without their `index` (Gemini's compatible endpoint has sent them so) */
  omitToolIndex?: boolean;
  /** where usage goes: a last chunk with empty choices (default; OpenAI, vLLM, DeepSeek) or the finish chunk (llama.cpp) */
  usageIn?: "separate" | "finish";
  /** how cached tokens are reported: prompt_tokens_details.cached_tokens (default) or DeepSeek's prompt_cache_hit_tokens */
  cacheStyle?: "openai" | "deepseek";
  /** SSE comment lines before the first chunk, as OpenRouter sends while it waits (": OPENROUTER PROCESSING") */
  keepAlive?: number;
  /** send `data: [DONE]` at the end (default true) */
  done?: boolean;
  // -- Responses API --
  /** the phase of message items */
  phase?: "commentary" | "final_answer";
}

export interface FrameContext {
  /** the reply's number on this server (ids are made from it) */
  n: number;
  model: string;
  /** the request asked for usage (Chat Completions) */
  includeUsage: boolean;
  /** the request asked for encrypted reasoning (Responses) */
  includeEncrypted: boolean;
  /** the prompt's size estimate, when the spec gives none */
  estimatedInput: number;
}

export interface Frames {
  frames: string[];
  /** index of the first frame that ends the reply (finish chunk / terminal event) */
  terminal: number;
}

function chunkChars(text: string, size: number): string[] {
  const n = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out.length ? out : [""];
}

export const argsText = (b: Extract<FakeBlock, { type: "tool_call" }>) => (typeof b.arguments === "string" ? b.arguments : JSON.stringify(b.arguments ?? {}));
const estimate = (chars: number) => Math.max(1, Math.ceil(chars / 4));

function usageFigures(spec: ReplySpec, ctx: FrameContext) {
  const chars = spec.content.reduce((n, b) => n + (b.type === "tool_call" ? b.name.length + argsText(b).length : b.text.length), 0);
  return { input: spec.usage?.input ?? ctx.estimatedInput, output: spec.usage?.output ?? estimate(chars), cached: spec.usage?.cached ?? 0 };
}

export function finishOf(spec: ReplySpec): NonNullable<ReplySpec["finish"]> {
  return spec.finish ?? (spec.content.some((b) => b.type === "tool_call") ? "tool_calls" : "stop");
}

export function chatFrames(spec: ReplySpec, ctx: FrameContext): Frames {
  const base = { id: `chatcmpl-fake${ctx.n}`, object: "chat.completion.chunk", created: 1_767_225_600, model: ctx.model, system_fingerprint: "fp_fake" };
  const frames: string[] = [];
  for (let i = 0; i < (spec.keepAlive ?? 0); i++) frames.push(": OPENROUTER PROCESSING\n\n");
  const data = (payload: unknown) => frames.push(`data: ${JSON.stringify(payload)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    data({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  chunk({ role: "assistant", content: "" });
  const size = spec.chunkSize ?? 8;
  const calls: { index: number; id: string; name: string; pieces: string[]; whole: string }[] = [];
  const at = (index: number) => (spec.omitToolIndex ? {} : { index });
  const flushCalls = () => {
    if (calls.length === 0) return;
    if (spec.toolCallsWhole) {
      for (const c of calls) chunk({ tool_calls: [{ ...at(c.index), id: c.id, type: "function", function: { name: c.name, arguments: c.whole } }] });
    } else if (spec.interleaveToolCalls) {
      for (const c of calls) chunk({ tool_calls: [{ ...at(c.index), id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
      for (let round = 0; calls.some((c) => round < c.pieces.length); round++) {
        for (const c of calls) if (round < c.pieces.length) chunk({ tool_calls: [{ ...at(c.index), function: { arguments: c.pieces[round] } }] });
      }
    } else {
      for (const c of calls) {
        chunk({ tool_calls: [{ ...at(c.index), id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
        for (const p of c.pieces) chunk({ tool_calls: [{ ...at(c.index), function: { arguments: p } }] });
      }
    }
    calls.length = 0;
  };
  let callIndex = 0;
  for (const b of spec.content) {
    if (b.type === "tool_call") {
      const whole = argsText(b);
      calls.push({ index: callIndex, id: b.id ?? `call_fake${ctx.n}_${callIndex}`, name: b.name, whole, pieces: chunkChars(whole, b.chunkSize ?? spec.argsChunkSize ?? 16) });
      callIndex++;
      continue;
    }
    flushCalls();
    const field = b.type === "text" ? "content" : (spec.reasoningField ?? "reasoning_content");
    for (const piece of chunkCodePoints(b.text, b.chunkSize ?? size)) chunk({ [field]: piece });
  }
  flushCalls();
  const u = usageFigures(spec, ctx);
  const cache = spec.cacheStyle === "deepseek" ? { prompt_cache_hit_tokens: u.cached, prompt_cache_miss_tokens: u.input - u.cached } : { prompt_tokens_details: { cached_tokens: u.cached } };
  const usage = { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output, ...cache, completion_tokens_details: { reasoning_tokens: 0 } };
  const terminal = frames.length;
  const inFinish = ctx.includeUsage && spec.usageIn === "finish";
  chunk({}, finishOf(spec), inFinish ? { usage } : {});
  if (ctx.includeUsage && !inFinish) data({ ...base, choices: [], usage });
  if (spec.done !== false) frames.push("data: [DONE]\n\n");
  return { frames, terminal };
}

export function responsesFrames(spec: ReplySpec, ctx: FrameContext): Frames {
  const frames: string[] = [];
  let seq = 0;
  const ev = (type: string, payload: Record<string, unknown>) => frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload, sequence_number: seq++ })}\n\n`);
  const response = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id: `resp_fake${ctx.n}`,
    object: "response",
    created_at: 1_767_225_600,
    status,
    model: ctx.model,
    output,
    error: null,
    incomplete_details: null,
    usage: null,
    ...extra,
  });
  ev("response.created", { response: response("in_progress", []) });
  ev("response.in_progress", { response: response("in_progress", []) });
  const size = spec.chunkSize ?? 8;
  const output: Record<string, unknown>[] = [];
  spec.content.forEach((b, i) => {
    const at = { output_index: i };
    if (b.type === "reasoning") {
      const id = `rs_fake${ctx.n}_${i}`;
      ev("response.output_item.added", { ...at, item: { id, type: "reasoning", summary: [] } });
      ev("response.reasoning_summary_part.added", { ...at, item_id: id, summary_index: 0, part: { type: "summary_text", text: "" } });
      for (const d of chunkCodePoints(b.text, b.chunkSize ?? size)) ev("response.reasoning_summary_text.delta", { ...at, item_id: id, summary_index: 0, delta: d });
      ev("response.reasoning_summary_text.done", { ...at, item_id: id, summary_index: 0, text: b.text });
      ev("response.reasoning_summary_part.done", { ...at, item_id: id, summary_index: 0, part: { type: "summary_text", text: b.text } });
      const item = { id, type: "reasoning", summary: [{ type: "summary_text", text: b.text }], ...(ctx.includeEncrypted ? { encrypted_content: b.encrypted ?? `gAAAA-fake-encrypted-${ctx.n}-${i}` } : {}) };
      ev("response.output_item.done", { ...at, item });
      output.push(item);
    } else if (b.type === "text") {
      const id = `msg_fake${ctx.n}_${i}`;
      const phase = spec.phase ? { phase: spec.phase } : {};
      ev("response.output_item.added", { ...at, item: { id, type: "message", status: "in_progress", role: "assistant", content: [], ...phase } });
      ev("response.content_part.added", { ...at, item_id: id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const d of chunkCodePoints(b.text, b.chunkSize ?? size)) ev("response.output_text.delta", { ...at, item_id: id, content_index: 0, delta: d, logprobs: [] });
      ev("response.output_text.done", { ...at, item_id: id, content_index: 0, text: b.text, logprobs: [] });
      const part = { type: "output_text", text: b.text, annotations: [] };
      ev("response.content_part.done", { ...at, item_id: id, content_index: 0, part });
      const item = { id, type: "message", status: "completed", role: "assistant", content: [part], ...phase };
      ev("response.output_item.done", { ...at, item });
      output.push(item);
    } else {
      const id = `fc_fake${ctx.n}_${i}`;
      const whole = argsText(b);
      const head = { id, type: "function_call", call_id: b.id ?? `call_fake${ctx.n}_${i}`, name: b.name };
      ev("response.output_item.added", { ...at, item: { ...head, status: "in_progress", arguments: "" } });
      for (const d of chunkChars(whole, b.chunkSize ?? spec.argsChunkSize ?? 16)) ev("response.function_call_arguments.delta", { ...at, item_id: id, delta: d });
      ev("response.function_call_arguments.done", { ...at, item_id: id, name: b.name, arguments: whole });
      const item = { ...head, status: "completed", arguments: whole };
      ev("response.output_item.done", { ...at, item });
      output.push(item);
    }
  });
  const u = usageFigures(spec, ctx);
  const usage = { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input + u.output };
  const terminal = frames.length;
  const finish = finishOf(spec);
  if (finish === "length" || finish === "content_filter") {
    const reason = finish === "length" ? "max_output_tokens" : "content_filter";
    ev("response.incomplete", { response: response("incomplete", output, { usage, incomplete_details: { reason } }) });
  } else ev("response.completed", { response: response("completed", output, { usage }) });
  return { frames, terminal };
}
