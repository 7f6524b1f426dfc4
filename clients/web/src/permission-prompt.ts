/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The daemon's requestPermission (permission mode `ask`): a box above the message box naming the
// session that asks, the tool and what it would do, answered with Allow (this call), Always (this
// tool, for the rest of the live session) or Deny. Questions wait their turn; the first one is
// shown. A question is the daemon's, not the page's: after a reload it is sent again (the same
// requestId: it replaces the copy waiting here), and when it ends elsewhere (another window
// answered, the run was aborted) the request_resolved event withdraws it from the box.
//
// What would run is shown whole, however long: a model could otherwise put the harmful part of a
// command past any cut. The box scrolls, and when the arguments do not fit in it a line under it
// says so, with their size, before the user answers. Characters that would hide or reorder text
// (DEL, C1 controls, bidi overrides and isolates) are shown as \u escapes: the arguments are JSON,
// and escaping them keeps the same value. An edit is shown as the diff of its old and new text
// (every line of both), a write as the content it would write.
import type { ServerRequestParams, ServerRequestResult } from "../../../protocol/index.js";
import { diffEl, replacementDiff } from "./diff-view.js";
import { fmtInt, h } from "./dom.js";

type Ask = ServerRequestParams<"requestPermission">;
type Answer = ServerRequestResult<"requestPermission">;

/** What could hide or reorder text (DEL, C1 controls, bidi overrides and isolates) written as \u escapes. */
function visible(text: string): string {
  return text.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The arguments as indented JSON, escaped as above. */
function shownArgs(args: unknown): string {
  return visible(JSON.stringify(args, null, 2) ?? "null");
}

/**
 * What the call would do, in the box: an edit as the diff of its old and new text, a write as the
 * content it would write, anything else as its arguments' JSON. Arguments beyond the ones drawn
 * (or of another shape) are shown as JSON too: nothing the tool would get is left out.
 */
function whatItWouldDo(ask: Ask): { head: string; box: HTMLElement; text: string; rest?: string } {
  const { path, oldText, newText, content, ...rest } = ask.args as Record<string, unknown>;
  const restJson = Object.keys(rest).length > 0 ? shownArgs(rest) : undefined;
  if (typeof path === "string" && ask.toolName === "edit" && typeof oldText === "string" && typeof newText === "string" && content === undefined) {
    const text = visible(replacementDiff(oldText, newText));
    return { head: `change ${visible(path)}:`, box: diffEl(text, "permission-args"), text, rest: restJson };
  }
  if (typeof path === "string" && ask.toolName === "write" && typeof content === "string" && oldText === undefined && newText === undefined) {
    const text = visible(content);
    const lines = content === "" ? 0 : content.split("\n").length;
    return { head: `write ${visible(path)} (${fmtInt(lines)} line${lines === 1 ? "" : "s"}, ${fmtInt(content.length)} characters):`, box: h("pre", { class: "scroll permission-args permission-content", text }), text, rest: restJson };
  }
  const text = shownArgs(ask.args);
  return { head: "", box: h("pre", { class: "scroll permission-args", text }), text };
}

export class PermissionPrompt {
  readonly el = h("div", { class: "permission", role: "alertdialog", "aria-label": "Permission request", hidden: true });
  private readonly waiting: { ask: Ask; answer: (a: Answer) => void }[] = [];

  /** `sessionLabel`: what the page calls a session (its name where it knows one, else its id) */
  constructor(private readonly sessionLabel: (sessionId: string) => string) {}

  /** The answer the user gives (the daemon waits for it). */
  ask(ask: Ask): Promise<Answer> {
    return new Promise((answer) => {
      const again = ask.requestId === undefined ? -1 : this.waiting.findIndex((w) => w.ask.requestId === ask.requestId);
      if (again >= 0) {
        // sent again (this page subscribed again): the daemon waits for the new copy's answer only
        this.waiting[again].answer({ outcome: "deny" });
        this.waiting[again] = { ask, answer };
        if (again === 0) this.draw();
        return;
      }
      this.waiting.push({ ask, answer });
      if (this.waiting.length === 1) this.draw();
    });
  }

  /** The question ended elsewhere: out of the box (the daemon ignores the answer given to it now). */
  withdraw(requestId: string): void {
    const i = this.waiting.findIndex((w) => w.ask.requestId === requestId);
    if (i < 0) return;
    const [gone] = this.waiting.splice(i, 1);
    gone.answer({ outcome: "deny" });
    if (i === 0) this.draw();
    else this.relabel();
  }

  /** The session's name as the page knows it now (the list may arrive after the question). */
  relabel(): void {
    const first = this.waiting[0];
    const label = this.el.querySelector<HTMLElement>(".permission-session");
    if (first && label) label.textContent = this.sessionLabel(first.ask.sessionId);
  }

  private draw(): void {
    const first = this.waiting[0];
    this.el.hidden = !first;
    this.el.replaceChildren();
    if (!first) return;
    const { ask } = first;
    const shown = whatItWouldDo(ask);
    const answer = (outcome: Answer["outcome"]) => {
      this.waiting.shift();
      first.answer({ outcome });
      this.draw();
    };
    this.el.dataset.tool = ask.toolName;
    this.el.append(
      h("div", { class: "permission-asker" }, "Session ", h("strong", { class: "permission-session", text: this.sessionLabel(ask.sessionId) }), " asks:"),
      h("div", { class: "permission-head" }, "The agent wants to run ", h("code", { text: ask.toolName }), this.waiting.length > 1 ? h("span", { class: "muted", text: ` (${this.waiting.length - 1} more waiting)` }) : null),
      ...(shown.head ? [h("div", { class: "permission-what", text: `It would ${shown.head}` })] : []),
      shown.box,
      ...(shown.rest ? [h("pre", { class: "scroll permission-rest", tabindex: 0, "aria-label": "The call's other arguments", text: shown.rest })] : []),
      h("div", { class: "permission-note", hidden: true }),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "primary allow", text: "Allow", onclick: () => answer("allow") }),
        h("button", { type: "button", class: "allow-always", text: `Always allow ${ask.toolName}`, title: "For the rest of this live session", onclick: () => answer("allowAlways") }),
        h("button", { type: "button", class: "danger deny", text: "Deny", onclick: () => answer("deny") }),
      ),
    );
    shown.box.tabIndex = 0;
    shown.box.setAttribute("aria-label", "What the tool would be given, in full");
    this.noteWhenLong(shown.text);
    this.el.querySelector<HTMLElement>("button.allow")?.focus();
  }

  /** Arguments longer than their box: said under it, so nobody answers without knowing there is more. */
  private noteWhenLong(args: string): void {
    const box = this.el.querySelector<HTMLElement>(".permission-args");
    const note = this.el.querySelector<HTMLElement>(".permission-note");
    if (!box || !note || box.scrollHeight <= box.clientHeight) return;
    note.textContent = `Long: ${fmtInt(args.length)} characters, all of them in the box above. Scroll it to read to the end before you answer.`;
    note.hidden = false;
  }
}
