/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The screen that asks for the daemon's token: when the page was opened without one, or the
// daemon refused the one it had.
import { h } from "./dom.js";

export class TokenScreen {
  readonly el: HTMLElement;
  private readonly message = h("p", { class: "token-message", role: "alert" });
  private readonly input = h("input", { type: "password", name: "token", autocomplete: "off", placeholder: "token", "aria-label": "Token" });

  constructor(onToken: (token: string) => void) {
    const form = h(
      "form",
      { class: "token-form" },
      h("h1", { text: "Connect to pith" }),
      this.message,
      h("p", { class: "muted", text: "Paste the daemon's token (pith serve prints a link with it; it is also in $PITH_HOME/token). It is kept for this tab only." }),
      this.input,
      h("button", { type: "submit", class: "primary", text: "Connect" }),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const token = this.input.value.trim();
      // the token travels in a WebSocket subprotocol name: only these characters fit
      if (!/^[A-Za-z0-9_-]+$/.test(token)) {
        this.message.textContent = "A token uses only letters, digits, _ and -.";
        return;
      }
      this.input.value = "";
      onToken(token);
    });
    this.el = h("div", { class: "token-screen", hidden: true }, form);
  }

  ask(message: string, hint = ""): void {
    this.message.textContent = message;
    if (hint) this.message.appendChild(h("span", { class: "hint", text: ` ${hint}` }));
    this.message.hidden = message === "";
    this.el.hidden = false;
    this.input.focus();
  }

  hide(): void {
    this.el.hidden = true;
  }
}
