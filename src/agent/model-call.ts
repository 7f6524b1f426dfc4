// One model call of a run: the context built from the store, the provider's stream turned into
// the agent's message events, a failure retried or not as the host decides, and the final
// message stored before it is announced. Kept apart from the loop, which only sees the stored
// message (and the error, if the call failed).
import { modelViews } from "../messages/cut-reply.js";
import type { AssistantMessage } from "../messages/types.js";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { REPLY_TOO_LARGE } from "../llm/reply-cap.js";
import type { ProviderError, ToolSpec } from "../llm/types.js";
import type { RunScope } from "./agent-options.js";
import type { RunError } from "./events.js";

/** The output limit asked for: the configured one, within the room left (never below a useful minimum). */
function replyBudget(limit: number, room: number | undefined): number {
  return room === undefined ? limit : Math.max(256, Math.min(limit, Math.floor(room)));
}

/** The run's error for a failed call; a reply cut at the cap has its own code. */
function runError(failure: ProviderError): RunError {
  const error: RunError = { message: failure.message, errorClass: failure.errorClass, status: failure.status };
  if (failure.type === REPLY_TOO_LARGE) error.code = ErrorCodes.ReplyTooLarge;
  return error;
}

/** One model call, retried as the host decides; returns the stored assistant message and, when the call failed, why. */
export async function callModel(scope: RunScope, toolSpecs: readonly ToolSpec[]): Promise<{ message: AssistantMessage; error: RunError | undefined }> {
  const { options, emit, runId, signal } = scope;
  const { session, provider, model } = options;
  for (let attempt = 1; ; attempt++) {
    const ctx = session.buildContext();
    // a reply cut at the cap goes back bounded (messages/cut-reply.ts), not as the MiB it was cut at
    const context = modelViews(ctx.messages) as typeof ctx.messages;
    const messages = options.hooks?.transformContext ? options.hooks.transformContext(context) : context;
    let final: AssistantMessage | undefined;
    let failure: ProviderError | undefined;
    let started = false;
    for await (const ev of provider.stream({
      model,
      systemPrompt: options.systemPrompt,
      messages,
      tools: toolSpecs,
      maxTokens: replyBudget(options.maxTokens ?? Math.min(model.maxOutputTokens, 32_000), options.hooks?.replyRoom?.()),
      thinkingLevel: options.thinkingLevel,
      signal,
    })) {
      if (ev.type === "start") {
        started = true;
        // a copy: the partial message keeps growing, and events are kept for replay
        emit({ type: "message_start", runId, message: structuredClone(ev.partial) });
      } else if (ev.type === "text_delta" || ev.type === "thinking_delta") {
        emit({ type: "message_update", runId, message: ev.partial, delta: { type: ev.type === "text_delta" ? "text" : "thinking", contentIndex: ev.contentIndex, text: ev.delta } });
      } else if (ev.type === "toolcall_start") {
        emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_start", contentIndex: ev.contentIndex, toolCallId: ev.id, toolName: ev.name } });
      } else if (ev.type === "toolcall_delta") {
        emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_delta", contentIndex: ev.contentIndex, text: ev.delta } });
      } else if (ev.type === "toolcall_end") {
        emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_end", contentIndex: ev.contentIndex, toolCallId: ev.toolCall.id, toolName: ev.toolCall.name } });
      } else if (ev.type === "done") {
        final = ev.message;
      } else if (ev.type === "error") {
        final = ev.message;
        failure = ev.error;
      }
    }
    if (!final) throw new Error(`provider ${provider.name} ended its stream without a final message`);
    if (!started) emit({ type: "message_start", runId, message: final });
    let worded: RunError | undefined;
    if (failure && failure.errorClass !== "aborted" && !signal.aborted && options.hooks?.onModelError) {
      const decision = await options.hooks.onModelError(failure, { runId, attempt, signal });
      if (decision.action === "retry" && !signal.aborted) {
        // the failed attempt is not stored: the retry takes its place
        emit({ type: "message_end", runId, message: final, willRetry: true });
        continue;
      }
      worded = decision.error;
      // a failure the host worded with where the call went is stored in those words (a reload shows them)
      if (worded?.provider && final.stopReason === "error") final.errorMessage = worded.message;
    }
    if (failure && signal.aborted) {
      final.stopReason = "aborted";
      final.errorMessage = "request aborted";
    }
    const error = failure && failure.errorClass !== "aborted" ? (worded ?? runError(failure)) : undefined;
    const entry = session.appendMessage(final, { sync: true });
    emit({ type: "message_end", runId, message: final, entryId: entry.id });
    return { message: final, error };
  }
}
