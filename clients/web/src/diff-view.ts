/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Diffs drawn as lines: added, removed, hunk headers and context each marked, so a tool card's
// result (the edit tool's own unified diff) and a permission question about an edit (its old and
// new text, before anything ran) read the same way.
import { h } from "./dom.js";

/** A unified-style diff text as a scrolling block, each line classed by its first character. */
export function diffEl(diff: string, cls = ""): HTMLPreElement {
  const pre = h("pre", { class: `scroll diff${cls ? ` ${cls}` : ""}` });
  for (const line of diff.split("\n")) {
    const mark = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    pre.appendChild(h("span", { class: mark, text: `${line}\n` }));
  }
  return pre;
}

/**
 * An edit's old text against its new one, every line of both kept (what is asked about is shown
 * whole): the lines they share at the start and the end as context, the rest removed, then added.
 * No line numbers: where the text sits in the file is not known until the edit runs.
 */
export function replacementDiff(oldText: string, newText: string): string {
  const before = oldText.split("\n");
  const after = newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return [
    ...before.slice(0, head).map((l) => ` ${l}`),
    ...before.slice(head, before.length - tail).map((l) => `-${l}`),
    ...after.slice(head, after.length - tail).map((l) => `+${l}`),
    ...before.slice(before.length - tail).map((l) => ` ${l}`),
  ].join("\n");
}
