/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// What the context no longer holds: the active branch before the latest compaction, in a closed
// block above the compaction marker. It is fetched (getHistory) when first opened, so a long
// session costs nothing until someone looks.
import { transcriptFrom } from "../../ts/transcript-state.js";
import { h } from "./dom.js";
import { errText, type SessionRef } from "./host.js";
import { Transcript } from "./transcript.js";
import type { StoredCompactions } from "./transcript-items.js";

/** The closed block for session `s` (whose context starts at a compaction summary). */
export function historyBlock(s: SessionRef, stored: StoredCompactions): HTMLDetailsElement {
  const body = h("div", { class: "history-body" }, h("div", { class: "muted", text: "Loading…" }));
  const el = h("details", { class: "history", "data-loaded": "false" }, h("summary", { text: "Earlier messages — before the compaction (summarized for the model, kept in the session)" }), body);
  let loading = false;
  el.addEventListener("toggle", () => {
    if (!el.open || loading) return;
    loading = true;
    void load(s, stored, body).then(
      () => (el.dataset.loaded = "true"),
      () => (loading = false), // opening it again retries
    );
  });
  return el;
}

async function load(s: SessionRef, stored: StoredCompactions, body: HTMLElement): Promise<void> {
  try {
    const { messages } = await s.client.call("getHistory", { sessionId: s.id });
    const inner = new Transcript(true);
    inner.setStoredCompactions(stored);
    inner.show(transcriptFrom(messages, { idle: true, placeholder: "Nothing before the compaction on this branch." }));
    body.replaceChildren(inner.el);
  } catch (err) {
    body.replaceChildren(h("div", { class: "notice error", text: `Could not load the earlier messages: ${errText(err)}` }));
    throw err;
  }
}
