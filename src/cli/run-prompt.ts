// One prompt, headless: the session (new, --session, --continue), the run, and its outcome (the
// stop reason, the final reply's text, the run's usage). `--mode json` and `--mode text` (-p)
// differ only in what they print from the events.
import type { Logger } from "pino";
import type { Settings } from "../host/policy/settings.js";
import type { SessionEvent } from "../host/live/event-buffer.js";
import type { LiveSession } from "../host/live/live-session.js";
import type { QuestionClient } from "../host/ports.js";
import { OFFLINE_HINT } from "../llm/demo-script.js";
import { hostOrExit } from "./daemon.js";
import { printError } from "./error-text.js";
import { sessionFileOf } from "./session-ref.js";
import { printErr } from "./terminal-out.js";
import type { StoreConfig } from "./store-config.js";

export interface PromptRunOptions {
  log: Logger;
  prompt: string;
  /** a session file, id or id prefix */
  session?: string;
  continueLast: boolean;
  model?: string;
  /** settings from command-line flags */
  flags?: Settings;
  /** the session store (default: files under $PITH_HOME/sessions) */
  store?: StoreConfig;
  /** where a new session works, and a session file from outside the store (default: the current directory) */
  cwd?: string;
  /** who answers the session's permission questions (--permission-mode ask on a terminal) */
  asker?: QuestionClient;
  /** a terminal can answer them (-p with stdin a terminal): one is asked if the session itself asks */
  canAsk?: boolean;
}

export interface RunOutcome {
  sessionId: string;
  stopReason: string;
  /** the text of the run's last assistant message */
  text: string;
  usage: Record<string, unknown> & { cost?: { total?: number } };
  error?: { message: string };
}

export interface PromptRunHooks {
  /** the session is open: its header, whether it runs the offline demo model, and whether it existed before (--session, --continue) */
  opened(session: LiveSession, offline: boolean, existing: boolean): void;
  event(event: SessionEvent): void;
}

/** The run's stop reason as an exit code: 0 when it ended normally, 1 on an error or an abort. */
export const exitCodeOf = (o: RunOutcome | undefined) => (o && (o.stopReason === "stop" || o.stopReason === "length") ? 0 : 1);

/** The sentence said to anyone who runs the offline model: what it is and how to use a real one. */
export const OFFLINE_NOTICE = `This is the offline demo model (no model is configured): it follows a small script. ${OFFLINE_HINT}`;

function textOf(message: unknown): string {
  const content = (message as { content?: unknown })?.content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: string; text?: string }) => (b?.type === "text" ? (b.text ?? "") : "")).join("");
}

export async function runPrompt(opts: PromptRunOptions, hooks: PromptRunHooks): Promise<RunOutcome | undefined> {
  const host = await hostOrExit(opts.log, 0, opts.flags, opts.store);
  if (!host) return undefined;
  let session: LiveSession;
  let existing = false;
  try {
    if (opts.session) {
      const sessionFile = opts.store?.kind === "postgres" ? opts.session : sessionFileOf(opts.session);
      // a file from outside the store (a colleague's, a download) works here, never where its header says
      const cwd = host.workspaces.isStoreFile(sessionFile) ? undefined : (opts.cwd ?? process.cwd());
      const ref = { sessionFile, ...(cwd === undefined ? {} : { cwd }) };
      session = await host.perform("openSession", ref, () => host.open(ref));
      existing = true;
    } else {
      const last = opts.continueLast ? (await host.list(opts.cwd ?? process.cwd()))[0] : undefined;
      // a new session takes the model at creation, so one it refuses leaves no session behind
      const fresh = { cwd: opts.cwd ?? process.cwd(), ...(opts.model && !last ? { model: opts.model } : {}) };
      session = last ? await host.perform("openSession", { sessionFile: last.file }, () => host.open({ sessionFile: last.file })) : await host.perform("createSession", fresh, () => host.create(fresh));
      existing = last !== undefined;
    }
    const model = opts.model;
    const opened = session;
    if (model && existing) await host.perform("setModel", { sessionId: opened.id, model }, (held) => opened.setModel(held, model));
  } catch (err) {
    printError(err);
    await host.shutdown();
    return undefined;
  }
  // a session may ask by itself (its own mode, set on it): someone must be there to answer, as for the flag
  let asker = opts.asker;
  if (!asker && session.permissionMode === "ask") {
    if (opts.canAsk) asker = (await import("./terminal-asker.js")).terminalAsker();
    else {
      printErr(`pith: session ${session.id.slice(0, 8)} asks before each change (its permission mode, set on the session, is ask) and nothing here can answer; run it with pith -p on a terminal, or with --permission-mode readonly\n`);
      await host.shutdown();
      return undefined;
    }
  }
  const outcome: RunOutcome = { sessionId: session.id, stopReason: "error", text: "", usage: {} };
  hooks.opened(session, session.getState().model.provider === "scripted", existing);
  if (asker) host.questions.join(session.id, asker);
  const ended = new Promise<void>((resolve) => {
    session.subscribe((event) => {
      hooks.event(event);
      if (event.type === "message_end" && (event.message as { role?: string })?.role === "assistant") outcome.text = textOf(event.message);
      if (event.type === "agent_end") {
        outcome.stopReason = String(event.stopReason);
        outcome.usage = (event.usage ?? {}) as RunOutcome["usage"];
        if (event.error) outcome.error = event.error as { message: string };
        resolve();
      }
    });
  });
  const onSignal = () => session.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await host.perform("prompt", { sessionId: session.id, text: opts.prompt }, (held) => session.prompt(held, { text: opts.prompt }));
    await ended;
    await session.idle();
  } catch (err) {
    printError(err);
    outcome.stopReason = "error";
    outcome.error = { message: (err as Error).message };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await host.shutdown();
  }
  return outcome;
}
