// pino to stderr, synchronously: stdout is reserved for protocol output (JSON-RPC, --mode json).
// On a terminal each record is one human line (time, level, message, fields); piped, or with
// PITH_LOG_FORMAT=json, the usual JSON lines for a log collector. PITH_LOG_FORMAT=pretty forces
// the human lines. Either way what a record carries from the model, a tool or a session file
// reaches the terminal shown, never obeyed (terminal-safe.ts): the human lines made visible, the
// JSON lines with DEL, C1 and bidi controls as \u escapes (JSON escapes the rest itself).
import { writeSync } from "node:fs";
import pino, { type DestinationStream, type Logger } from "pino";
import { terminalSafe, terminalSafeJson } from "./terminal-safe.js";

export type { Logger };

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

export function createLogger(level: string | undefined = process.env.PITH_LOG_LEVEL, format: string | undefined = process.env.PITH_LOG_FORMAT): Logger {
  const chosen = level && LEVELS.has(level) ? level : "info";
  const human = format === "pretty" || (format !== "json" && process.stderr.isTTY === true);
  return pino({ name: "pith", level: chosen }, human ? humanLines(2) : jsonLines(2));
}

/** pino's JSON lines, synchronously, with nothing a terminal would act on left raw. */
function jsonLines(fd: number): DestinationStream {
  const dest = pino.destination({ dest: fd, sync: true });
  return { write: (record: string) => void dest.write(terminalSafeJson(record)) };
}

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
/** pino's own fields, said by the line's layout instead */
const OWN = new Set(["level", "time", "pid", "hostname", "name", "msg", "err", "v"]);

function fieldText(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 200 ? s.slice(0, 199) + "…" : s;
}

/** `12:34:56 WARN  message key=value … (error's message)`, one line a record, written synchronously. */
function humanLines(fd: number): DestinationStream {
  return {
    write(record: string) {
      let line = record.trimEnd();
      try {
        const r = JSON.parse(record) as Record<string, unknown> & { err?: { message?: unknown } };
        const time = new Date(typeof r.time === "number" ? r.time : Date.now()).toTimeString().slice(0, 8);
        const level = (LEVEL_NAMES[r.level as number] ?? String(r.level)).padEnd(5);
        const fields = Object.entries(r)
          .filter(([k]) => !OWN.has(k))
          .map(([k, v]) => `${k}=${fieldText(v)}`);
        const cause = typeof r.err?.message === "string" ? ` (${r.err.message})` : "";
        line = `${time} ${level} ${String(r.msg ?? "")}${fields.length ? "  " + fields.join(" ") : ""}${cause}`.replace(/\s*[\r\n]+\s*/g, " ");
      } catch {
        // not JSON: write it as it came
      }
      try {
        writeSync(fd, terminalSafe(line) + "\n");
      } catch {
        // stderr gone: nothing to say it to
      }
    },
  };
}

/**
 * `pith acp`: editors show every stderr chunk to the user as an error or a notice. With a level
 * asked for (--log-level, else PITH_LOG_LEVEL), the usual JSON logs at that level; without one,
 * stderr stays silent in normal operation and says what is really wrong (error and fatal) in one
 * plain line each: `pith: <message>[: <error's message>]`.
 */
export function createAcpLogger(level: string | undefined = process.env.PITH_LOG_LEVEL): Logger {
  if (level && LEVELS.has(level)) return createLogger(level);
  return pino({ name: "pith", level: "error" }, plainLines(2));
}

/** One plain-text line per log record, written synchronously to `fd`. */
function plainLines(fd: number): DestinationStream {
  return {
    write(record: string) {
      let line: string;
      try {
        const r = JSON.parse(record) as { msg?: unknown; err?: { message?: unknown } };
        const msg = typeof r.msg === "string" && r.msg !== "" ? r.msg : "error";
        const cause = typeof r.err?.message === "string" && r.err.message !== "" ? `: ${r.err.message}` : "";
        line = `${msg}${cause}`;
      } catch {
        line = record;
      }
      try {
        writeSync(fd, `pith: ${terminalSafe(line.replace(/\s*[\r\n]+\s*/g, " ").trim())}\n`);
      } catch {
        // stderr gone (the editor closed it): nothing to say it to
      }
    },
  };
}
