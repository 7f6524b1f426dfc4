// pino to stderr, synchronously: stdout is reserved for protocol output (JSON-RPC, --mode json).
import pino, { type Logger } from "pino";

export type { Logger };

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

export function createLogger(level: string | undefined = process.env.PITH_LOG_LEVEL): Logger {
  const chosen = level && LEVELS.has(level) ? level : "info";
  return pino({ name: "pith", level: chosen }, pino.destination({ dest: 2, sync: true }));
}
