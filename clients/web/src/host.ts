// What the page's parts (composer, context bar, sidebar) may ask of the app shell (main.ts): the
// client and the session shown, its view, and ways to report back. The parts own their elements
// and the requests they make; the shell owns the connection, the session and its events.
import type { ResultOf } from "../../../protocol/index.js";
import { PithRpcError, type PithClient } from "../../ts/browser.js";
import type { SessionView } from "../../ts/session-view.js";

export type SessionOpened = ResultOf<"openSession">;

export interface SessionRef {
  readonly client: PithClient;
  readonly id: string;
}

/** Requests of ours that keep the session busy until they are answered (no event covers all of them). */
export type OwnWork = "compacting" | "summarizing" | "bashing";

/** What runs: the session's own activity (its view) with our requests in flight. */
export interface Activity {
  running: boolean;
  /** the run's current model call, 0 if unknown */
  turn: number;
  compacting: boolean;
  summarizing: boolean;
  bashing: boolean;
  /** any of the above: most requests would get SessionBusy */
  busy: boolean;
}

export interface AppHost {
  /** the connected client, if any */
  client(): PithClient | undefined;
  /** the client and the session shown, when there are both */
  session(): SessionRef | undefined;
  activity(): Activity;
  ownWork(what: OwnWork, on: boolean): void;
  /** applies what a request's answer says and no event will (setAutoCompactionEnabled) */
  updateView(change: (view: SessionView) => SessionView): void;
  notice(kind: "error" | "warn" | "info", text: string, tag?: string): void;
  refreshState(): Promise<void>;
  refreshStateSoon(): void;
  /** shows the session `opening` opens (and subscribes to it); false if it could not be opened */
  adopt(opening: () => Promise<SessionOpened>): Promise<boolean>;
  /** refetches the session shown */
  reload(): Promise<void>;
  showSidebar(open: boolean): void;
  /** puts text in the message box (navigateTree's editorText) */
  setDraft(text: string): void;
  focusComposer(): void;
  /** the user sent something: the transcript goes to its end and follows it again */
  followLatest(): void;
  /** the session list changed (the title may use a session's first message) */
  sessionsChanged(): void;
}

export function errText(err: unknown): string {
  if (err instanceof PithRpcError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

export function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (t) clearTimeout(t);
    t = setTimeout(() => {
      t = undefined;
      fn();
    }, ms);
  };
}
