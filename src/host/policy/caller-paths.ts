// Paths a client sends (a session's cwd, a cwd to list or check) are the caller's to get right:
// each problem is -32602 with a stable data.reason, never an internal error with a raw message.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ErrorCode, HostError } from "../host-error.js";

function invalid(reason: string, message: string, path: string): HostError {
  return new HostError(ErrorCode.InvalidParams, message, { reason, path: path.slice(0, 300) });
}

/** A path that the file system could take: no NUL character. Returns it resolved. */
export function callerPath(path: string): string {
  if (path.includes("\0")) throw invalid("InvalidPath", `not a valid path (it holds a NUL character): ${JSON.stringify(path.slice(0, 200))}`, path);
  return resolve(path);
}

/** A session's working directory: an existing directory the daemon can reach. Returns it resolved. */
export function callerCwd(path: string): string {
  const cwd = callerPath(path);
  let isDir: boolean;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw invalid("CwdNotFound", `no such directory: ${cwd}`, cwd);
    if (code === "ENAMETOOLONG") throw invalid("PathTooLong", `the path is too long for this system: ${cwd.slice(0, 200)}…`, cwd);
    if (code === "EACCES" || code === "EPERM") throw invalid("PermissionDenied", `not allowed to reach ${cwd}`, cwd);
    throw err;
  }
  if (!isDir) throw invalid("NotADirectory", `not a directory: ${cwd}`, cwd);
  return cwd;
}
