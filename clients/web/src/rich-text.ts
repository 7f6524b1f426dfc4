/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Message text as elements. Model output is untrusted: nothing here is parsed as HTML, every
// piece goes in through textContent (dom.ts's h()); markdown.ts renders the markdown subset.
import type { UserContentBlock } from "../../../protocol/index.js";
import { h } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

/** Message text as elements: markdown (markdown.ts), never HTML. */
export function renderText(text: string): DocumentFragment {
  return renderMarkdown(text);
}

export function contentText(content: string | readonly UserContentBlock[]): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

export function images(content: string | readonly UserContentBlock[]): HTMLElement[] {
  if (typeof content === "string") return [];
  return content.flatMap((b) => (b.type === "image" ? [h("img", { class: "attached", src: `data:${b.mimeType};base64,${b.data}`, alt: "image" })] : []));
}

/** A thinking block: collapsed, its text scrolls. */
export function thinkingEl(text: string): HTMLElement {
  return h("details", { class: "thinking" }, h("summary", { text: "Thinking" }), h("pre", { class: "scroll", text }));
}
