/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The daemon's requestPermission (permission mode `ask`): a box above the message box naming the
// tool and what it would do, answered with Allow (this call), Always (this tool, for the rest of
// the live session) or Deny. Questions wait their turn; the first one is shown.
import type { ServerRequestParams, ServerRequestResult } from "../../../protocol/index.js";
import { h } from "./dom.js";

type Ask = ServerRequestParams<"requestPermission">;
type Answer = ServerRequestResult<"requestPermission">;

const MAX_ARGS = 2000;

export class PermissionPrompt {
  readonly el = h("div", { class: "permission", role: "alertdialog", "aria-label": "Permission request", hidden: true });
  private readonly waiting: { ask: Ask; answer: (a: Answer) => void }[] = [];

  /** The answer the user gives (the daemon waits for it). */
  ask(ask: Ask): Promise<Answer> {
    return new Promise((answer) => {
      this.waiting.push({ ask, answer });
      if (this.waiting.length === 1) this.draw();
    });
  }

  private draw(): void {
    const first = this.waiting[0];
    this.el.hidden = !first;
    this.el.replaceChildren();
    if (!first) return;
    const { ask } = first;
    const args = JSON.stringify(ask.args, null, 2);
    const answer = (outcome: Answer["outcome"]) => {
      this.waiting.shift();
      first.answer({ outcome });
      this.draw();
    };
    this.el.dataset.tool = ask.toolName;
    this.el.append(
      h("div", { class: "permission-head" }, "The agent wants to run ", h("code", { text: ask.toolName }), this.waiting.length > 1 ? h("span", { class: "muted", text: ` (${this.waiting.length - 1} more waiting)` }) : null),
      h("pre", { class: "scroll permission-args", text: args.length > MAX_ARGS ? `${args.slice(0, MAX_ARGS)}…` : args }),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "primary allow", text: "Allow", onclick: () => answer("allow") }),
        h("button", { type: "button", class: "allow-always", text: `Always allow ${ask.toolName}`, title: "For the rest of this live session", onclick: () => answer("allowAlways") }),
        h("button", { type: "button", class: "danger deny", text: "Deny", onclick: () => answer("deny") }),
      ),
    );
    this.el.querySelector<HTMLElement>("button.allow")?.focus();
  }
}
