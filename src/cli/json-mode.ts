// `pith --mode json "prompt"`: one prompt, headless. Every event is one JSON line on stdout (the
// notification's params plus "type"), the session header first. Exit 0 when the run ends
// normally, 1 on an error or an abort, 2 on bad usage.
import type { Logger } from "pino";
import type { Settings } from "../host/settings.js";
import { HostError } from "../host/errors.js";
import type { LiveSession } from "../host/live-session.js";
import { hostErrorOf } from "../host/session-host.js";
import { hostOrExit } from "./daemon.js";
import type { StoreConfig } from "./store-config.js";

export interface JsonModeOptions {
  log: Logger;
  prompt: string;
  session?: string;
  continueLast: boolean;
  model?: string;
  /** settings from command-line flags */
  flags?: Settings;
  /** the session store (default: files under $PITH_HOME/sessions) */
  store?: StoreConfig;
}

function line(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + "\n");
}

export async function runJsonMode(opts: JsonModeOptions): Promise<number> {
  if (!opts.prompt.trim()) {
    process.stderr.write('pith: --mode json needs a prompt: pith --mode json [--session FILE | --continue] [--model ID] "prompt"\n');
    return 2;
  }
  if (opts.session && opts.continueLast) {
    process.stderr.write("pith: --session and --continue cannot be used together\n");
    return 2;
  }
  const host = await hostOrExit(opts.log, 0, opts.flags, opts.store);
  if (!host) return 1;
  let session: LiveSession;
  try {
    if (opts.session) session = await host.open({ sessionFile: opts.session });
    else {
      const last = opts.continueLast ? (await host.list(process.cwd()))[0] : undefined;
      session = last ? await host.open({ sessionFile: last.file }) : await host.create({ cwd: process.cwd() });
    }
    const model = opts.model;
    if (model) session.admit("setModel", { sessionId: session.id, model }, (held) => session.setModel(held, model));
  } catch (err) {
    const e = hostErrorOf(err) ?? (err instanceof HostError ? err : undefined);
    process.stderr.write(`pith: ${e ? `${e.code}: ${e.message}` : (err as Error).message}\n`);
    await host.shutdown();
    return 1;
  }
  line(session.file.header);
  let stopReason = "error";
  const ended = new Promise<void>((resolve) => {
    session.subscribe((event) => {
      line(event);
      if (event.type === "agent_end") {
        stopReason = String(event.stopReason);
        resolve();
      }
    });
  });
  const onSignal = () => session.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await session.admit("prompt", { sessionId: session.id, text: opts.prompt }, (held) => session.prompt(held, { text: opts.prompt }));
    await ended;
    await session.idle();
  } catch (err) {
    const e = hostErrorOf(err);
    process.stderr.write(`pith: ${e ? `${e.code}: ${e.message}` : (err as Error).message}\n`);
    stopReason = "error";
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await host.shutdown();
  }
  return stopReason === "stop" || stopReason === "length" ? 0 : 1;
}
