/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Tiny DOM helpers: h() builds elements, every text goes in through textContent (model output is
// never parsed as HTML).

export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: never) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Handler>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
      else if (key === "class") el.className = String(value);
      else if (key === "text") el.textContent = String(value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** 17020 → "17,020" */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** An ISO timestamp as "just now", "5 min ago", "3 h ago", or a date. */
export function relTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/** The last path segment (for a cwd). */
export function basename(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** Runs fn at most once per animation frame. */
export function frameScheduler(fn: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}
