/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A small markdown renderer for model text, which is untrusted. Nothing is ever parsed as HTML:
// each piece is an element built with createElement and filled through text nodes, so `<script>`
// or an `onerror=` in a reply shows as the characters it is. The subset: fenced code, headings,
// lists (bulleted and numbered), paragraphs, and inline code, bold, italic and links (http(s)
// only; any other scheme stays text). No library: the bundle takes nothing from node_modules.
import { h } from "./dom.js";

type Inline = string | HTMLElement;

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;

/** Markdown text as a fragment of safe elements. */
export function renderMarkdown(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const lines = text.split("\n");
  let para: string[] = [];
  let list: { el: HTMLElement; ordered: boolean } | undefined;
  const flushPara = () => {
    if (para.length > 0 && para.join("").trim() !== "") frag.appendChild(h("div", { class: "para" }, ...inline(para.join("\n"))));
    para = [];
  };
  const endList = () => (list = undefined);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      endList();
      const lang = line.trim().slice(3).trim().split(/\s+/)[0] ?? "";
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      const code = h("code", { text: body.join("\n") });
      if (/^[\w+-]{1,30}$/.test(lang)) code.dataset.lang = lang;
      frag.appendChild(h("pre", { class: "code" }, code));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      endList();
      const level = heading[1].length;
      frag.appendChild(h(`h${Math.min(6, level + 2)}` as "h3", { class: `md-h md-h${level}` }, ...inline(heading[2])));
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flushPara();
      const ordered = !!numbered;
      if (!list || list.ordered !== ordered) {
        const el = ordered ? h("ol", { class: "md-list", start: numbered![1] === "1" ? undefined : Number(numbered![1]) }) : h("ul", { class: "md-list" });
        frag.appendChild(el);
        list = { el, ordered };
      }
      list.el.appendChild(h("li", null, ...inline(bullet ? bullet[1] : numbered![2])));
      continue;
    }
    if (line.trim() === "") {
      flushPara();
      endList();
      continue;
    }
    if (list && /^\s{2,}\S/.test(line) && list.el.lastElementChild) {
      // an indented line continues the list item above
      list.el.lastElementChild.append(" ", ...inline(line.trim()));
      continue;
    }
    endList();
    para.push(line);
  }
  flushPara();
  return frag;
}

// code first (nothing inside it is markdown), then links, bold, italic
const INLINE = /`([^`\n]+)`|\[([^\]\n]+)\]\(([^()\s]+)\)|\*\*(?=\S)([\s\S]*?\S)\*\*|(?<![\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])|\*(?=[^\s*])([^*\n]*?[^\s*])\*|(?<![\p{L}\p{N}_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}_])/gu;

/** Inline markdown as text nodes and elements. */
function inline(text: string): Inline[] {
  const out: Inline[] = [];
  const re = new RegExp(INLINE.source, INLINE.flags);
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined) out.push(h("code", { text: m[1] }));
    else if (m[2] !== undefined) out.push(link(m[2], m[3], m[0]));
    else if (m[4] !== undefined || m[5] !== undefined) out.push(h("strong", null, ...inline(m[4] ?? m[5])));
    else out.push(h("em", null, ...inline(m[6] ?? m[7])));
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A link to an http(s) address; anything else (javascript:, data:, relative) stays as text. */
function link(label: string, href: string, raw: string): Inline {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return raw;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return raw;
  return h("a", { href: url.href, target: "_blank", rel: "noopener noreferrer nofollow" }, ...inline(label));
}

/**
 * Markdown as one line of plain text, for a label (the tree's previews, which are the first
 * characters of a message or summary with its line breaks already folded into spaces): headings'
 * and rules' marks go (one inside the line becomes a " · " break), and so do emphasis, code and
 * bullet marks; a link or image keeps its text.
 */
export function plainLabel(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)\s]*\)/g, "$1")
    .replace(/^\s*(#{1,6}|-{3,}|\*{3,}|_{3,})\s+/, "")
    .replace(/\s+(#{1,6}|-{3,}|\*{3,}|_{3,})(?=\s|$)/g, " ·")
    .replace(/(\*\*|__)(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/(^|[\s(])\*(\S(?:[^*]*?\S)?)\*(?=[\s.,;:!?)]|$)/g, "$1$2")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(^|\s)[*+]\s+/g, "$1")
    .replace(/^\s*-\s+/, "")
    .replace(/\s+/g, " ")
    .trim();
}
