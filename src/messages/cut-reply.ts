// What a reply cut at the cap (maxReplyMB, llm/reply-cap.ts) adds to the model's context. It
// is stored whole, up to the cap (nothing stored is lost, and clients read it as it came); but
// sent back on every later request, estimated as tens of MiB of tokens and handed to the
// summarizer, it would make each next call as large as the hostile reply: the next request
// carries it, the threshold is crossed at once, and compaction feeds it to the same endpoint.
// So the model's view of a cut reply is its first CUT_REPLY_VIEW_BYTES and a note saying where
// it was cut. One pure function, used wherever messages become model input: the provider
// request (agent/model-call.ts), the token estimate and compaction's transcript and fallback.
import type { AgentMessage, AssistantMessage } from "./types.js";

/** How much of a cut reply the model sees again (UTF-8 bytes of its text and thinking). */
export const CUT_REPLY_VIEW_BYTES = 16 << 10;

/** How reply-cap.ts's errorMessage for a cut reply begins (the stored mark of one). */
export const CUT_REPLY_MARK = "the model's reply passed the ";

/** A reply stored cut at the cap. */
function isCutReply(m: AgentMessage): m is AssistantMessage {
  return m.role === "assistant" && m.stopReason === "error" && typeof m.errorMessage === "string" && m.errorMessage.startsWith(CUT_REPLY_MARK) && m.errorMessage.includes("(maxReplyMB)");
}

const views = new WeakMap<AssistantMessage, AssistantMessage>();
const encoder = new TextEncoder();

/** The first `bytes` UTF-8 bytes of `text`, never splitting a character. */
function leading(text: string, bytes: number): string {
  if (text.length * 3 <= bytes) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, bytes)));
  return text.slice(0, read);
}

function mib(bytes: number): string {
  return `${Math.round((bytes / (1 << 20)) * 100) / 100} MiB`;
}

/**
 * The message as the model is given it: itself, or for a cut reply its first
 * CUT_REPLY_VIEW_BYTES of text and thinking (tool calls never survive a cut) and a note. The
 * same object for the same message, so estimates cached per message stay cached.
 */
export function modelView(m: AgentMessage): AgentMessage {
  if (!isCutReply(m)) return m;
  let view = views.get(m);
  if (view) return view;
  let left = CUT_REPLY_VIEW_BYTES;
  let stored = 0;
  const content: AssistantMessage["content"] = [];
  for (const b of m.content) {
    const text = b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : undefined;
    if (text === undefined) continue;
    stored += Buffer.byteLength(text, "utf8");
    if (left <= 0) continue;
    const kept = leading(text, left);
    left -= Buffer.byteLength(kept, "utf8");
    if (b.type === "text") content.push(kept === text ? b : { ...b, text: kept });
    else if (kept === text) content.push(b);
    else {
      // a shortened thinking block loses its signature, as in reply-cap.ts
      const { thinkingSignature: _signature, ...rest } = b as Extract<typeof b, { type: "thinking" }>;
      content.push({ ...rest, thinking: kept });
    }
  }
  if (stored > CUT_REPLY_VIEW_BYTES) content.push({ type: "text", text: `\n[the reply was cut at ${mib(stored)}: the rest is left out]` });
  view = { ...m, content };
  views.set(m, view);
  return view;
}

/** The messages as the model is given them: the same array when none was cut. */
export function modelViews(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  let out: AgentMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const v = modelView(messages[i]);
    if (v !== messages[i]) (out ??= messages.slice(0, i)).push(v);
    else out?.push(v);
  }
  return out ?? messages;
}
