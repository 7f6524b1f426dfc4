// The CLI's one way to write for a person or a script: every command's text goes through here, so
// a reply, a tool's command or output, a session file's preview or a model name from a server
// reaches the terminal shown, never obeyed (src/log/terminal-safe.ts). JSON lines stay the same
// JSON value (a parser reads exactly what was stored); only their bytes avoid what a terminal
// acts on. stdout of `--mode rpc` and `acp` is the protocol's, written by their transports.
import { terminalSafe, terminalSafeJson } from "../log/terminal-safe.js";

/** Text for a person on stdout. */
export function printOut(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** Text for a person on stderr. */
export function printErr(text: string): void {
  process.stderr.write(terminalSafe(text));
}

/** Carriage return, erase the line: how a status line is rewritten in place on a terminal. */
const REWRITE = "\r\x1b[2K";

/**
 * A status line on stderr, rewritten in place (a terminal only: the caller checks), cut to the
 * terminal's width so it never wraps; its text is shown like any other, never obeyed.
 */
export function printStatus(line: string): void {
  const width = process.stderr.columns || 120;
  process.stderr.write(REWRITE + terminalSafe(line).slice(0, Math.max(20, width - 1)));
}

/** Erases the status line. */
export function clearStatus(): void {
  process.stderr.write(REWRITE);
}

/** One JSON line on stdout. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(terminalSafeJson(JSON.stringify(value)) + "\n");
}
