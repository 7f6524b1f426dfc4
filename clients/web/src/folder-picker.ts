/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The folder a new session works in, which the user always picks: the daemon's own folder would
// be wherever `pith serve` was started (under `npm start`, pith's checkout), and the home
// directory is no project. Offered: the folders picked in this browser before (localStorage, the
// last one already in the box) and those the listed sessions work in. A path must be absolute: a
// relative one would resolve against the daemon's folder, and `~` is not expanded.
import { basename, h } from "./dom.js";

const STORE_KEY = "pith.recentFolders";
const KEPT = 8;
const OFFERED = 6;

function stored(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(STORE_KEY) ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x !== "") : [];
  } catch {
    return [];
  }
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

export class FolderPicker {
  readonly input = h("input", { type: "text", name: "cwd", class: "folder-input", placeholder: "Full path, e.g. /home/me/project", autocomplete: "off", spellcheck: "false", "aria-label": "Folder the session works in" });
  private readonly recentEl = h("div", { class: "recent-folders", role: "group", "aria-label": "Recent folders" });
  private readonly hintEl = h("p", { class: "hint folder-hint", role: "alert", hidden: true });
  readonly el = h("div", { class: "folder-picker" }, h("label", { class: "folder-label", text: "Folder the session works in" }), this.input, this.recentEl, this.hintEl);

  constructor() {
    this.input.addEventListener("input", () => {
      this.hintEl.hidden = true;
      this.markPicked();
    });
  }

  /** Before the form opens: the folders to offer, this browser's picks first, then `sessionCwds` (newest first). */
  offer(sessionCwds: readonly string[]): void {
    const mine = stored();
    const folders = [...new Set([...mine, ...sessionCwds])].slice(0, OFFERED);
    if (this.input.value.trim() === "" && mine[0]) this.input.value = mine[0];
    this.hintEl.hidden = true;
    this.recentEl.replaceChildren(
      ...(folders.length > 0 ? [h("span", { class: "muted recent-label", text: "Recent:" })] : []),
      ...folders.map((cwd) => h("button", { type: "button", class: "recent-folder", "data-cwd": cwd, title: cwd, text: basename(cwd), onclick: () => this.pick(cwd) })),
    );
    this.markPicked();
  }

  /** The folder in the box, or undefined with why not said under it. */
  picked(): string | undefined {
    const cwd = this.input.value.trim();
    const why =
      cwd === ""
        ? "Pick the folder the session works in (a recent one above, or type its full path)."
        : cwd.startsWith("~")
          ? "Give the full path: ~ is not expanded."
          : !isAbsolute(cwd)
            ? "Give the full path (starting with /): a relative one would be taken from the folder pith serve runs in."
            : undefined;
    this.hintEl.textContent = why ?? "";
    this.hintEl.hidden = why === undefined;
    if (why) this.input.focus();
    return why ? undefined : cwd;
  }

  /** The folder a session was created in: offered first next time. */
  remember(cwd: string): void {
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify([cwd, ...stored().filter((c) => c !== cwd)].slice(0, KEPT)));
    } catch {
      // storage disabled: the sessions' folders are still offered
    }
  }

  private pick(cwd: string): void {
    this.input.value = cwd;
    this.hintEl.hidden = true;
    this.markPicked();
    this.input.focus();
  }

  private markPicked(): void {
    const cwd = this.input.value.trim();
    for (const b of this.recentEl.querySelectorAll<HTMLElement>(".recent-folder")) b.setAttribute("aria-pressed", String(b.dataset.cwd === cwd));
  }
}
