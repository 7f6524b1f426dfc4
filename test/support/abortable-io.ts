// A fake server's pacing and writing for one response, both ended by the connection's abort
// signal (the client went away, or the server closes): they resolve false then instead of hanging.
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** Sleeps `ms`; false when the response was aborted first. */
export function abortableWait(signal: AbortSignal): (ms: number) => Promise<boolean> {
  return async (ms) => {
    if (signal.aborted) return false;
    if (ms <= 0) return true;
    try {
      await sleep(ms, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  };
}

/** Writes to the response; false when it failed or the response was aborted. */
export function abortableWrite(res: ServerResponse, signal: AbortSignal): (text: string) => Promise<boolean> {
  return (text) =>
    new Promise((resolve) => {
      if (signal.aborted || res.destroyed) return resolve(false);
      // the callback may never run once the socket is gone: the abort settles it then
      const onAbort = () => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
      res.write(text, (err) => {
        signal.removeEventListener("abort", onAbort);
        resolve(!err && !signal.aborted);
      });
    });
}
