/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The prompts queued on the running run, with their text, under the composer: every tab of the
// session shows them (getState.queue, then queue_update) until they are delivered or dropped.
// Beside a steer, "Stop and send now": the reply being streamed is aborted (what streamed of it
// is kept) and what is queued starts the next run at once (abort {queued: "send"}), rather than
// waiting for the reply to end.
import type { QueuedPrompt } from "../../ts/session-view.js";
import { clear, h } from "./dom.js";

export class QueueView {
  readonly el = h("ul", { class: "queued-prompts", "aria-label": "Queued prompts" });
  private shown: readonly QueuedPrompt[] | undefined;

  constructor(private readonly sendNow: () => void) {}

  render(queue: readonly QueuedPrompt[]): void {
    this.el.hidden = queue.length === 0;
    if (queue === this.shown) return;
    this.shown = queue;
    clear(this.el);
    for (const q of queue) {
      const steer = q.delivery === "steer";
      this.el.appendChild(
        h(
          "li",
          { class: "queued-prompt", "data-delivery": q.delivery },
          h("span", { class: "queued-kind muted", text: steer ? "steer" : "follow-up" }),
          h("span", { class: "queued-text", text: q.text, title: q.text }),
          steer && h("button", { type: "button", class: "send-now", text: "Stop and send now", title: "Abort the reply (what streamed is kept) and send what is queued at once", onclick: () => this.sendNow() }),
        ),
      );
    }
  }
}
