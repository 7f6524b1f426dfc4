/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Message text as elements. Model output is untrusted: nothing here is parsed as HTML, every
// piece goes in through textContent (dom.ts's h()).
import type { UserContentBlock } from "../../../protocol/index.js";
import { h } from "./dom.js";

/** Plain text with ``` fences as code blocks and `inline code`. */
export function renderText(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const lines = text.split("\n");
  let buf: string[] = [];
  let inCode = false;
  const flush = () => {
    if (buf.length === 0) return;
    const body = buf.join("\n");
    buf = [];
    if (inCode) frag.appendChild(h("pre", { class: "code" }, h("code", { text: body })));
    else if (body.trim() !== "") frag.appendChild(h("div", { class: "para" }, ...inline(body)));
  };
  for (const line of lines) {
    if (/^\s*```/.test(line)) {
      flush();
      inCode = !inCode;
      continue;
    }
    buf.push(line);
  }
  flush();
  return frag;
}

function inline(text: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  const re = /`([^`\n]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(h("code", { text: m[1] }));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
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
