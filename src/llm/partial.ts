// Builds the assistant message as a stream arrives, and the events that report each step.
// Shared by every provider so they all emit the same sequence.
import { emptyUsage, type AssistantMessage, type ToolCall } from "../messages/types.js";
import { REPLY_TOO_LARGE } from "./reply-cap.js";
import { ProviderError, type ModelInfo, type StreamEvent } from "./types.js";

/**
 * A thinking signature is a few hundred bytes to a few KiB; it grows without an event, so the reply
 * cap (reply-cap.ts) never sees it: past this an endpoint streaming signature deltas for ever is cut.
 */
const MAX_SIGNATURE_CHARS = 1 << 20;

export class PartialMessage {
  readonly message: AssistantMessage;
  /** the arguments JSON so far of each tool call still open, by content index (an array: this is the per-delta path) */
  private readonly toolJson: (string | undefined)[] = [];

  constructor(model: ModelInfo, api: string) {
    this.message = { role: "assistant", content: [], api, provider: model.provider, model: model.id, usage: emptyUsage(), stopReason: "stop", timestamp: Date.now() };
  }

  start(): StreamEvent {
    return { type: "start", partial: this.message };
  }

  beginText(index: number): void {
    this.message.content[index] = { type: "text", text: "" };
  }
  text(index: number, delta: string): StreamEvent {
    const block = this.message.content[index];
    if (block?.type === "text") block.text += delta;
    return { type: "text_delta", contentIndex: index, delta, partial: this.message };
  }

  beginThinking(index: number, redactedData?: string): void {
    this.message.content[index] = redactedData !== undefined ? { type: "thinking", thinking: "", thinkingSignature: redactedData, redacted: true } : { type: "thinking", thinking: "" };
  }
  thinking(index: number, delta: string): StreamEvent {
    const block = this.message.content[index];
    if (block?.type === "thinking") block.thinking += delta;
    return { type: "thinking_delta", contentIndex: index, delta, partial: this.message };
  }
  signature(index: number, signature: string): void {
    const block = this.message.content[index];
    if (block?.type !== "thinking") return;
    const grown = (block.thinkingSignature ?? "") + signature;
    if (grown.length > MAX_SIGNATURE_CHARS) throw new ProviderError({ errorClass: "fatal", type: REPLY_TOO_LARGE, message: `the model's thinking signature passed ${MAX_SIGNATURE_CHARS} characters: the stream was cut` });
    block.thinkingSignature = grown;
  }

  beginToolCall(index: number, id: string, name: string): StreamEvent {
    this.message.content[index] = { type: "toolCall", id, name, arguments: {} };
    this.toolJson[index] = "";
    return { type: "toolcall_start", contentIndex: index, id, name, partial: this.message };
  }
  toolJsonDelta(index: number, delta: string): StreamEvent {
    this.toolJson[index] = (this.toolJson[index] ?? "") + delta;
    return { type: "toolcall_delta", contentIndex: index, delta, partial: this.message };
  }
  /** Ends a block; for a tool call, parses its arguments (invalid JSON leaves {} and the tool's validation reports it). */
  endBlock(index: number): StreamEvent | undefined {
    const block = this.message.content[index];
    if (block?.type !== "toolCall") return undefined;
    const json = this.toolJson[index] ?? "";
    this.toolJson[index] = undefined;
    if (json.trim()) {
      try {
        const parsed = JSON.parse(json) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) block.arguments = parsed as Record<string, unknown>;
      } catch {
        block.arguments = {};
      }
    }
    return { type: "toolcall_end", contentIndex: index, toolCall: block as ToolCall, partial: this.message };
  }

  done(): StreamEvent {
    this.message.content = this.message.content.filter((b) => b !== undefined);
    return { type: "done", message: this.message };
  }

  fail(error: ProviderError): StreamEvent {
    // a call whose arguments never finished cannot be run: leave it out of the stored message
    this.message.content = this.message.content.filter((b, i) => b !== undefined && (b.type !== "toolCall" || this.toolJson[i] === undefined));
    this.message.stopReason = error.errorClass === "aborted" ? "aborted" : "error";
    this.message.errorMessage = error.message;
    return { type: "error", message: this.message, error };
  }
}
