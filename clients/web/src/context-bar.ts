/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The bar above the transcript: how full the context is (with the automatic-compaction threshold
// marked, and a quiet note while a summary is written ahead of time), the auto-compaction switch
// with the threshold it fires at (a share of the window, the session's own), and compacting on
// demand with instructions for the summary. On a narrow screen the row keeps the meter and a menu
// button; the rest (here and in the session controls) opens from it.
import { PithRpcError } from "../../ts/browser.js";
import { ErrorCodes } from "../../../protocol/error-codes.js";
import { contextMeter, withAutoCompaction, type SessionView } from "../../ts/session-view.js";
import { fmtInt, h } from "./dom.js";
import { errText, type AppHost } from "./host.js";

export class ContextBar {
  /** the bar (meter, switch, button) */
  readonly el: HTMLElement;
  /** the compaction form, shown under the bar */
  readonly form: HTMLFormElement;
  private readonly meterFill = h("div", { class: "meter-fill" });
  private readonly meterMark = h("div", { class: "meter-threshold" });
  private readonly meterBar = h("div", { class: "meter-bar", role: "meter", "aria-label": "Context used" }, this.meterFill, this.meterMark);
  private readonly meterText = h("span", { class: "meter-text" });
  private readonly meterPrep = h("span", { class: "meter-prep", hidden: true });
  private readonly meter = h("div", { class: "meter", "data-tokens": "0", "data-window": "0" }, this.meterBar, this.meterText, this.meterPrep);
  private readonly autoBox = h("input", { type: "checkbox", class: "auto-compaction" });
  /** the session's threshold as a percentage of the window; empty: the settings' (or reserveTokens alone) */
  private readonly thresholdBox = h("input", { type: "number", class: "compaction-threshold", min: "1", max: "100", step: "1", "aria-label": "Compact at, percent of the window" });
  private readonly compactBtn = h("button", { type: "button", class: "compact-open", text: "Compact…" });
  /** narrow screens only (app.css): the rest of the session's controls, folded away so the chat keeps the screen */
  private readonly moreBtn = h("button", { type: "button", class: "session-menu", text: "⋯", title: "Session controls", "aria-label": "Session controls", "aria-expanded": "false" });
  private readonly instructions = h("textarea", { class: "compact-instructions", rows: 2, placeholder: "Instructions for the summary (optional), e.g. keep the API details" });
  /** the switch's new position while the daemon has not confirmed it (a redraw must not undo the click) */
  private toggling: boolean | undefined;

  constructor(private readonly host: AppHost) {
    this.el = h(
      "div",
      { class: "sessionbar" },
      this.meter,
      h("label", { class: "check auto", title: "Compact automatically when the context passes the threshold" }, this.autoBox, " Auto-compact"),
      h("label", { class: "threshold", title: "Compact automatically past this share of the window (empty: the settings'). The reply's reserve may fire first." }, " at ", this.thresholdBox, "%"),
      this.compactBtn,
      this.moreBtn,
    );
    this.form = h(
      "form",
      { class: "compact-form", hidden: true },
      this.instructions,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary compact-now", text: "Compact now" }), h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => this.toggleForm(false) })),
    );
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.compactNow();
    });
    this.compactBtn.addEventListener("click", () => this.toggleForm());
    this.moreBtn.addEventListener("click", () => this.toggleMore());
    this.autoBox.addEventListener("change", () => void this.setAutoCompaction(this.autoBox.checked));
    this.thresholdBox.addEventListener("change", () => void this.setThreshold(this.thresholdBox.value.trim()));
  }

  get formOpen(): boolean {
    return !this.form.hidden;
  }

  toggleForm(show = this.form.hidden): void {
    this.form.hidden = !show;
    if (show) this.instructions.focus();
  }

  /** Opens or folds the controls behind the menu button (the row's and the session controls' after it). */
  private toggleMore(open = this.el.dataset.more !== "open"): void {
    this.el.dataset.more = open ? "open" : "closed";
    this.moreBtn.setAttribute("aria-expanded", String(open));
  }

  render(view: SessionView | undefined, reserveTokens: number, enabled: boolean, busy: boolean): void {
    // nothing to measure or compact without a session
    this.el.hidden = !view;
    if (!view) this.form.hidden = true;
    this.compactBtn.disabled = !enabled || busy;
    this.autoBox.disabled = !enabled;
    this.autoBox.checked = this.toggling ?? view?.autoCompaction ?? this.autoBox.checked;
    this.thresholdBox.disabled = !enabled;
    // not while the user types in it
    if (document.activeElement !== this.thresholdBox) this.thresholdBox.value = thresholdPercent(view);
    const m = contextMeter(view?.context ?? { tokens: 0, window: 0 }, reserveTokens);
    const { tokens, window, threshold } = m;
    this.meterFill.style.width = `${m.percent}%`;
    this.meterMark.style.left = `${window > 0 ? (threshold / window) * 100 : 0}%`;
    const d = this.meter.dataset;
    d.tokens = String(Math.round(tokens));
    d.window = String(window);
    d.threshold = String(threshold);
    d.over = String(m.over);
    d.auto = String(this.autoBox.checked);
    this.meterText.textContent = window > 0 ? `${fmtInt(tokens)} / ${fmtInt(window)} tokens · ${Math.round(m.percent)}%` : "";
    this.meter.title = window > 0 ? `Context: ${fmtInt(tokens)} of ${fmtInt(window)} tokens. Automatic compaction above ${fmtInt(threshold)} (${Math.round((threshold / window) * 100)}% of the window).` : "";
    this.meterBar.setAttribute("aria-valuenow", String(Math.round(tokens)));
    this.meterBar.setAttribute("aria-valuemax", String(window));
    const phase = view?.prepared ?? null;
    this.meterPrep.hidden = phase === null;
    d.preparing = phase ?? "none";
    this.meterPrep.textContent = phase === "ready" ? "summary ready" : phase === "summarizing" ? "preparing summary…" : "";
    this.meterPrep.title = phase ? "The next compaction's summary is written ahead of time, so compacting will not make you wait." : "";
  }

  private async setAutoCompaction(enabled: boolean): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    this.toggling = enabled;
    try {
      const r = await s.client.call("setAutoCompactionEnabled", { sessionId: s.id, enabled });
      this.toggling = undefined;
      this.host.updateView((v) => (v.sessionId === s.id ? withAutoCompaction(v, r.enabled) : v));
    } catch (err) {
      this.toggling = undefined;
      this.autoBox.checked = !enabled;
      this.host.notice("error", `Could not change automatic compaction: ${errText(err)}`);
    }
  }

  /** Sets the session's threshold from the box: a percentage of the window, empty for the settings' one. */
  private async setThreshold(text: string): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    const percent = Number(text);
    if (text !== "" && !(percent > 0 && percent <= 100)) {
      this.host.notice("error", "The compaction threshold is a percentage of the window, above 0 and at most 100.");
      return;
    }
    try {
      await s.client.call("setCompactionThreshold", { sessionId: s.id, threshold: text === "" ? null : percent / 100 });
    } catch (err) {
      this.host.notice("error", `Could not set the compaction threshold: ${errText(err)}`);
    }
    // the new trigger comes as usage_update; the setting itself with the state
    void this.host.refreshState();
  }

  private async compactNow(): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    const instructions = this.instructions.value.trim();
    this.toggleForm(false);
    this.host.ownWork("compacting", true);
    try {
      await s.client.compact(s.id, instructions || undefined);
      this.instructions.value = "";
    } catch (err) {
      const nothing = err instanceof PithRpcError && err.code === ErrorCodes.NothingToCompact;
      this.host.notice(nothing ? "info" : "error", nothing ? "Nothing to compact yet." : `Compaction failed: ${errText(err)}`, nothing ? "nothing-to-compact" : "error");
    } finally {
      this.host.ownWork("compacting", false);
      void this.host.refreshState();
    }
  }
}

/** The session's threshold setting as a percentage of its window ("" when none is set). */
function thresholdPercent(view: SessionView | undefined): string {
  const t = view?.info.compactionThreshold;
  const window = view?.context.window ?? 0;
  if (t === undefined) return "";
  if (t <= 1) return String(Math.round(t * 1000) / 10);
  return window > 0 ? String(Math.round((t / window) * 1000) / 10) : "";
}
