// Errors as a person reads them: `pith: <sentence>`, never a bare code (-32010, ENOENT) in front.
// The stable codes stay on the wire (JSON-RPC errors); on a terminal the sentence says it.
import { HostError } from "../host/host-error.js";
import { SessionError } from "../session/index.js";
import { printErr } from "./terminal-out.js";

const ERRNO: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ENOSPC: "no space left on the device",
  ECONNREFUSED: "the connection was refused",
};

/** The error's sentence: its message without a leading code, or what its errno code means. */
function errorSentence(err: unknown): string {
  if (err instanceof HostError || err instanceof SessionError) return err.message;
  const e = err as NodeJS.ErrnoException | undefined;
  const code = typeof e?.code === "string" ? e.code : undefined;
  let message = typeof e?.message === "string" ? e.message : String(err);
  // node's fs errors read "ENOENT: no such file or directory, open '/x'": keep the words and the path
  if (code && message.startsWith(`${code}: `)) message = message.slice(code.length + 2);
  // a refused connection is an AggregateError: a code and an empty message
  if (!message.trim()) message = code ? (ERRNO[code] ?? `failed (${code})`) : "failed for an unknown reason";
  return message;
}

export function printError(err: unknown): void {
  printErr(`pith: ${errorSentence(err)}\n`);
}
