/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The message box and what it sends: a prompt when idle; while a run goes on, a steer (handed
// to the agent after the running tool, or when the reply being streamed ends) or a follow-up
// (for when it would stop); `!cmd` runs
// a shell command (the bash method). Abort stops whatever runs. The status line says what runs;
// the queued prompts show under it (queue-view.ts), a steer with "Stop and send now".
import type { QueuedPrompt } from "../../ts/session-view.js";
import { h } from "./dom.js";
import { errText, type Activity, type AppHost } from "./host.js";
import { QueueView } from "./queue-view.js";

export class Composer {
  readonly el: HTMLElement;
  private readonly input = h("textarea", {
    class: "prompt-input",
    rows: 3,
    placeholder: "Open or create a session to start",
    title: "Enter sends · Shift+Enter: new line · !cmd runs a shell command",
    "aria-label": "Message",
  });
  private readonly statusEl = h("span", { class: "run-status", "data-state": "idle" });
  private readonly pendingEl = h("span", { class: "pending muted" });
  private readonly sendBtn = h("button", { type: "button", class: "send primary", text: "Send" });
  private readonly steerBtn = h("button", { type: "button", class: "steer", text: "Steer", title: "Hand this to the running agent after the running tool, or when its reply ends (Enter)" });
  private readonly followBtn = h("button", { type: "button", class: "follow-up", text: "Follow-up", title: "Queue this for when the agent would stop (Alt+Enter)" });
  private readonly abortBtn = h("button", { type: "button", class: "abort danger", text: "Abort", title: "Stop what is running (Esc)" });
  private readonly queueView = new QueueView(() => void this.abort("send"));

  constructor(private readonly host: AppHost) {
    this.el = h(
      "div",
      { class: "composer" },
      h("div", { class: "composer-status" }, this.statusEl, this.pendingEl),
      this.queueView.el,
      this.input,
      h("div", { class: "composer-buttons" }, this.abortBtn, this.followBtn, this.steerBtn, this.sendBtn),
    );
    this.sendBtn.addEventListener("click", () => void this.submit());
    this.steerBtn.addEventListener("click", () => void this.submit("steer"));
    this.followBtn.addEventListener("click", () => void this.submit("followUp"));
    this.abortBtn.addEventListener("click", () => void this.abort());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.submit(this.host.activity().running && e.altKey ? "followUp" : undefined);
      }
    });
  }

  setDraft(text: string): void {
    this.input.value = text;
    this.input.focus();
  }

  focus(): void {
    this.input.focus();
  }

  render(a: Activity, enabled: boolean, pending: { steer: number; followUp: number } | undefined, queue: readonly QueuedPrompt[] = []): void {
    this.queueView.render(enabled ? queue : []);
    const otherBusy = a.compacting || a.summarizing || a.bashing;
    this.sendBtn.hidden = a.running;
    this.steerBtn.hidden = !a.running;
    this.followBtn.hidden = !a.running;
    this.abortBtn.hidden = !a.busy;
    this.sendBtn.disabled = !enabled || otherBusy;
    this.steerBtn.disabled = !enabled;
    this.followBtn.disabled = !enabled;
    this.abortBtn.disabled = !enabled;
    this.input.disabled = !enabled;
    // short enough for a phone; the keys are in the title and the status line
    this.input.placeholder = !enabled ? "Open or create a session to start" : a.running ? "Steer (Enter) or follow up (Alt+Enter)…" : "Message pith (!cmd runs a command)";
    const state = a.compacting ? "compacting" : a.summarizing ? "summarizing" : a.bashing ? "bash" : a.running ? "running" : "idle";
    this.statusEl.dataset.state = state;
    this.statusEl.textContent =
      state === "compacting"
        ? "Compacting the context…"
        : state === "summarizing"
          ? "Summarizing the branch…"
          : state === "bash"
            ? "Running your command…"
            : state === "running"
              ? `Working${a.turn > 0 ? ` (turn ${a.turn})` : ""}… Esc aborts`
              : "";
    const queued = pending ? pending.steer + pending.followUp : 0;
    this.pendingEl.textContent = pending && queued > 0 ? `queued: ${pending.steer} steer, ${pending.followUp} follow-up` : "";
  }

  private async submit(delivery?: "steer" | "followUp"): Promise<void> {
    const s = this.host.session();
    const text = this.input.value.trim();
    if (!s || text === "") return;
    const running = this.host.activity().running;
    if (!running && text.startsWith("!") && text.length > 1) return this.runBash(text.slice(1).trim());
    const mode = running ? (delivery ?? "steer") : undefined;
    this.input.value = "";
    this.host.followLatest();
    try {
      await s.client.prompt(s.id, text, mode ? { delivery: mode } : {});
      // a server without queue_update reports the queue in getState only
      if (mode) this.host.refreshStateSoon();
    } catch (err) {
      if (this.input.value === "") this.input.value = text;
      this.host.notice("error", `Not sent: ${errText(err)}`, "send-error");
    }
  }

  private async runBash(command: string): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    this.input.value = "";
    this.host.followLatest();
    this.host.ownWork("bashing", true);
    try {
      await s.client.bash(s.id, command);
    } catch (err) {
      this.input.value = `!${command}`;
      this.host.notice("error", `Command failed: ${errText(err)}`);
    } finally {
      this.host.ownWork("bashing", false);
      void this.host.refreshState();
    }
  }

  /** `queued: "send"`: what is queued starts the next run at once instead of being dropped ("Stop and send now"). */
  async abort(queued: "drop" | "send" = "drop"): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    try {
      await s.client.call("abort", { sessionId: s.id, ...(queued === "send" ? { queued } : {}) });
    } catch (err) {
      this.host.notice("error", `Abort failed: ${errText(err)}`);
    }
  }
}
