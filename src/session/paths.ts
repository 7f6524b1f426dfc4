// Where sessions live on disk. The layout is Pi's, so a sessions directory can be shared.
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import { checkSessionId } from "./ids.js";

export function pithHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.PITH_HOME && env.PITH_HOME.length > 0 ? env.PITH_HOME : join(homedir(), ".pith");
}

export function defaultSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(pithHome(env), "sessions");
}

/** Most file systems allow 255 bytes in one name. */
export const MAX_NAME_BYTES = 255;
const HASH_CHARS = 16;

/**
 * `/home/me/app` -> `--home-me-app--` (one directory per working directory), Pi's layout. A deep
 * path whose name would pass 255 bytes keeps a readable start and ends with a hash of the whole
 * path: `--home-me-very-long…-3f2a6c1e9b0d4e57--` (listing by cwd checks each header, so two long
 * paths with one start never mix).
 */
export function encodeCwd(cwd: string): string {
  const flat = cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
  const name = `--${flat}--`;
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const hash = createHash("sha256").update(cwd).digest("hex").slice(0, HASH_CHARS);
  const room = MAX_NAME_BYTES - Buffer.byteLength(`--…-${hash}--`);
  return `--${utf8Prefix(flat, room)}…-${hash}--`;
}

/** The longest start of `text` within `bytes` bytes of UTF-8, never cutting a character (or a surrogate pair) in two. */
function utf8Prefix(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > bytes) break;
    used += n;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** `<ISO timestamp with : and . replaced by ->_<uuid>.jsonl` */
function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${checkSessionId(sessionId, "a new session file")}.jsonl`;
}

export function sessionFilePath(sessionsDir: string, cwd: string, timestamp: string, sessionId: string): string {
  return join(sessionsDir, encodeCwd(cwd), sessionFileName(timestamp, sessionId));
}
