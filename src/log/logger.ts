// pino to stderr, synchronously: stdout is reserved for protocol output (JSON-RPC, --mode json).
import { writeSync } from "node:fs";
import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

export function createLogger(level: string | undefined = process.env.PITH_LOG_LEVEL): Logger {
  const chosen = level && LEVELS.has(level) ? level : "info";
  return pino({ name: "pith", level: chosen }, pino.destination({ dest: 2, sync: true }));
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
        writeSync(fd, `pith: ${line.replace(/\s*[\r\n]+\s*/g, " ").trim()}\n`);
      } catch {
        // stderr gone (the editor closed it): nothing to say it to
      }
    },
  };
}
