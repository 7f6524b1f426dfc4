// The cap on one model reply, around any provider: the text, thinking and tool-call arguments
// streamed in one call count together, and past `maxBytes` the call is cut. A hostile or
// intercepted endpoint could otherwise stream for ever: every delta grows the partial message,
// the events clients are sent and, at the end, one stored line.
//
// Cut means: the provider's request is aborted through its signal (every provider honours it, so
// the HTTP connection is closed whatever the SDK), the deltas that still arrive are dropped, and
// the provider's own failed message is what is stored, its text and thinking truncated to the cap
// and marked as an error whose ProviderError type is REPLY_TOO_LARGE (not retried: "fatal").
//
// Not an async generator: each of its yields would cost a promise hop on top of the provider's
// per delta (see event-pump.ts); here one then() per event, and counting is a length check. Being
// the one place every stream passes through, it also gives the event loop back during a long
// stream (loop-turns.ts), so one session's reply cannot keep the others waiting.
import { Buffer } from "node:buffer";
import { CUT_REPLY_MARK } from "../messages/cut-reply.js";
import type { AssistantMessage } from "../messages/types.js";
import { LoopTurns } from "./loop-turns.js";
import { ProviderError, type Provider, type StreamEvent, type StreamRequest } from "./types.js";

/** The default cap, in MiB (settings' maxReplyMB). */
const DEFAULT_MAX_REPLY_MB = 32;

/** The cap in bytes for settings' maxReplyMB (absent: the default). */
export function replyCapBytes(maxReplyMB: number | undefined): number {
  return Math.floor((maxReplyMB ?? DEFAULT_MAX_REPLY_MB) * (1 << 20));
}

/** ProviderError.type of a reply cut at the cap. */
export const REPLY_TOO_LARGE = "reply_too_large";

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

function mib(bytes: number): string {
  return `${Math.round((bytes / (1 << 20)) * 100) / 100} MiB`;
}

/** The provider, with every reply it streams cut past `maxBytes` (UTF-8 bytes of text, thinking and tool-call arguments). */
export function capReplies(provider: Provider, maxBytes: number): Provider {
  return {
    name: provider.name,
    stream: (request) => new CappedStream(provider, request, maxBytes),
  };
}

class CappedStream implements AsyncIterableIterator<StreamEvent, undefined> {
  private readonly controller = new AbortController();
  private readonly inner: AsyncIterator<StreamEvent>;
  private readonly onCallerAbort = () => this.controller.abort();
  private readonly turns = new LoopTurns();
  private used = 0;
  private cut = false;
  private finished = false;

  constructor(
    provider: Provider,
    private readonly request: StreamRequest,
    private readonly maxBytes: number,
  ) {
    request.signal.addEventListener("abort", this.onCallerAbort, { once: true });
    if (request.signal.aborted) this.controller.abort();
    this.inner = provider.stream({ ...request, signal: this.controller.signal })[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamEvent, undefined>> {
    if (this.finished) return Promise.resolve(DONE);
    return this.pull();
  }

  async return(): Promise<IteratorResult<StreamEvent, undefined>> {
    this.finish();
    await this.inner.return?.();
    return DONE;
  }

  private readonly onEvent = (r: IteratorResult<StreamEvent>): IteratorResult<StreamEvent, undefined> | Promise<IteratorResult<StreamEvent, undefined>> => {
    // the provider's stream is pulled to its end, so that its own cleanup (timers, listeners) runs
    if (r.done) {
      this.finish();
      return DONE;
    }
    const ev = r.value;
    if (this.cut) {
      // the provider winds down after the abort: its last deltas are dropped, its message kept as cut
      if (ev.type === "done" || ev.type === "error") return { done: false, value: this.cutEvent(ev.message) };
      return this.pull();
    }
    let size = 0;
    switch (ev.type) {
      case "text_delta":
      case "thinking_delta":
      case "toolcall_delta":
        // a delta is a few characters: counted in JavaScript, no call into the runtime per delta
        size = ev.delta.length < 64 && isAscii(ev.delta) ? ev.delta.length : Buffer.byteLength(ev.delta, "utf8");
        break;
      case "toolcall_start":
        size = ev.id.length + ev.name.length;
        break;
    }
    if (size === 0 || (this.used += size) <= this.maxBytes) return r as IteratorYieldResult<StreamEvent>;
    this.cut = true;
    this.controller.abort();
    return this.pull();
  };

  private pull(): Promise<IteratorResult<StreamEvent, undefined>> {
    if (this.turns.due()) return this.turns.wait().then(() => this.inner.next().then(this.onEvent, this.onThrow));
    return this.inner.next().then(this.onEvent, this.onThrow);
  }

  private readonly onThrow = (err: unknown): never => {
    // the port never throws; a provider that does is passed on as it is
    this.finish();
    throw err;
  };

  /** The provider's last message, truncated to the cap and marked as cut. */
  private cutEvent(message: AssistantMessage): StreamEvent {
    truncateToBytes(message, this.maxBytes);
    const error = new ProviderError({
      errorClass: "fatal",
      type: REPLY_TOO_LARGE,
      message: `${CUT_REPLY_MARK}${mib(this.maxBytes)} cap on one reply (maxReplyMB): the stream was cut and the reply kept up to the cap`,
    });
    message.stopReason = "error";
    message.errorMessage = error.message;
    return { type: "error", message, error };
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.request.signal.removeEventListener("abort", this.onCallerAbort);
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

const encoder = new TextEncoder();

/** The longest start of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function leadingBytes(text: string, bytes: number): string {
  if (text.length <= bytes && Buffer.byteLength(text, "utf8") <= bytes) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, bytes)));
  return text.slice(0, read);
}

/**
 * Keeps at most `maxBytes` of the message's text, thinking and tool-call arguments, in order: a
 * block past the cap is shortened, those after it left out. A shortened thinking block loses its
 * signature (it signed the whole text; sent back unsigned, the provider's converter drops it).
 */
export function truncateToBytes(message: AssistantMessage, maxBytes: number): void {
  let left = maxBytes;
  const kept: AssistantMessage["content"] = [];
  for (const block of message.content) {
    if (left <= 0) break;
    if (block.type === "text") {
      const text = leadingBytes(block.text, left);
      left -= Buffer.byteLength(text, "utf8");
      if (text === block.text) kept.push(block);
      else {
        kept.push({ ...block, text });
        break;
      }
    } else if (block.type === "thinking") {
      const thinking = leadingBytes(block.thinking, left);
      left -= Buffer.byteLength(thinking, "utf8");
      if (thinking === block.thinking) kept.push(block);
      else {
        const { thinkingSignature: _signature, ...rest } = block;
        kept.push({ ...rest, thinking });
        break;
      }
    } else {
      const size = Buffer.byteLength(JSON.stringify(block.arguments), "utf8") + block.id.length + block.name.length;
      if (size > left) break;
      left -= size;
      kept.push(block);
    }
  }
  message.content = kept;
}
