// What a run's streamed deltas add up to, checked against what each message_end carries.
import assert from "node:assert/strict";
import { asEvent, asMessage, type Ev } from "./daemon-client.js";

/** Text and tool-call arguments rebuilt from message_update deltas, per content index. */
export function rebuild(events: readonly Ev[]): Map<number, string> {
  const parts = new Map<number, string>();
  for (const e of events) {
    if (e.type !== "message_update") continue;
    const d = e.delta;
    if (d.type === "text" || d.type === "thinking" || d.type === "toolcall_delta") parts.set(d.contentIndex, (parts.get(d.contentIndex) ?? "") + (d.text ?? ""));
  }
  return parts;
}

/** Splits a run's events into the assistant replies: message_start .. message_end of role assistant. */
function replies(events: readonly Ev[]): Ev[][] {
  const out: Ev[][] = [];
  let current: Ev[] | null = null;
  for (const e of events) {
    if (e.type === "message_start" && e.message?.role === "assistant") current = [e];
    else if (current) {
      current.push(e);
      if (e.type === "message_end") {
        out.push(current);
        current = null;
      }
    }
  }
  return out;
}

/** Every assistant reply's deltas rebuild exactly the content message_end carries. */
export function checkDeltas(events: readonly Ev[]): void {
  for (const r of replies(events)) {
    const end = asEvent(r.at(-1), "message_end");
    const reply = asMessage(end.message, "assistant");
    if (reply.stopReason === "aborted" || end.willRetry) continue;
    const rebuilt = rebuild(r);
    reply.content.forEach((b, i) => {
      if (b.type === "text") assert.equal(rebuilt.get(i), b.text, `text block ${i} rebuilt from deltas`);
      if (b.type === "toolCall") assert.deepEqual(JSON.parse(rebuilt.get(i) || "{}"), b.arguments, `tool call ${i} arguments rebuilt from deltas`);
    });
  }
}
