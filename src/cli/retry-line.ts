// The line text mode shows while a failed model call is retried. On a terminal it is one line,
// rewritten in place by each retry, so a provider that stays down reads as one message, not one
// per attempt; anything else gets one line per attempt (a log keeps every line anyway).
// The text goes through terminalSafe like every other line; only pith's own erase is raw.
import { terminalSafe } from "../log/terminal-safe.js";

/** ESC [2K after a carriage return: the line erased, the cursor at its start. */
const ERASE_LINE = "\r\x1b[2K";

export class RetryLine {
  /** a retry line stands on the terminal without its newline */
  private open = false;

  private readonly tty: boolean;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {
    this.tty = out.isTTY === true;
  }

  /** A retry_start: `message` is the failure as the host words it. */
  retrying(attempt: number, maxAttempts: number, delayMs: number, message: string): void {
    const line = terminalSafe(`… ${message.replace(/\s+/g, " ").trim()}; retrying in ${seconds(delayMs)} (attempt ${String(attempt)} of ${String(maxAttempts)})`);
    if (!this.tty) {
      this.out.write(`${line}\n`);
      return;
    }
    this.out.write(`${ERASE_LINE}${line}`);
    this.open = true;
  }

  /** Another line is about to be written: the retry line stays, on a line of its own. */
  keep(): void {
    if (!this.open) return;
    this.out.write("\n");
    this.open = false;
  }

  /** The run failed and says so itself: the retry line gives way to that message. */
  replace(): void {
    if (!this.open) return;
    this.out.write(ERASE_LINE);
    this.open = false;
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${String(ms)} ms` : `${String(Math.round(ms / 100) / 10)} s`;
}
