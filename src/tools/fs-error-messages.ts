// Turning failures into messages the model can act on. Raw Node errors ("ENOENT: no such file or
// directory, open '/long/abs/path'") are noisy; the model needs to know which argument was wrong.
import { ToolError } from "./types.js";

/** A ToolError for a failed file-system call on `shown` (the path as the model wrote it). */
export function fsError(err: unknown, shown: string): ToolError {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof ToolError) return e;
  switch (e?.code) {
    case "ENOENT":
      return new ToolError(`File not found: ${shown}`);
    case "EISDIR":
      return new ToolError(`${shown} is a directory`);
    case "ENOTDIR":
      return new ToolError(`${shown}: a component of the path is not a directory`);
    case "EACCES":
    case "EPERM":
      return new ToolError(`Permission denied: ${shown}`);
    case "ELOOP":
      return new ToolError(`Too many levels of symbolic links: ${shown}`);
    case "EEXIST":
      return new ToolError(`${shown}: a file is in the way (${e.message})`);
    default:
      return new ToolError(`${shown}: ${e?.message ?? String(err)}`);
  }
}

/** The error a tool throws when its call was aborted (plain Error: an abort is not the model's mistake). */
export function abortedError(what = "Operation"): Error {
  return new Error(`${what} aborted`);
}

export function throwIfAborted(signal: AbortSignal, what?: string): void {
  if (signal.aborted) throw abortedError(what);
}

/** The message of anything thrown (an Error, a JSON-RPC error object, a string). */
export function messageOf(err: unknown): string {
  if (err && typeof err === "object" && "message" in err && typeof err.message === "string") return err.message;
  return String(err);
}
