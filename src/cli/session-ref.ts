// What a command's <session> names: a session file, or a session id (whole, or its first 8 or
// more characters) of a session under $PITH_HOME/sessions. Ids are what `pith list`, the web UI
// and --mode json show; a path is what the file store keeps.
import { existsSync } from "node:fs";
import { SessionError, defaultSessionsDir, findSessionFile, listSessions } from "../session/index.js";

const MIN_PREFIX = 8;

/** The file `ref` names, or a SessionError saying why there is none (or more than one). */
export function sessionFileOf(ref: string, sessionsDir: string = defaultSessionsDir()): string {
  if (ref.includes("/") || ref.endsWith(".jsonl") || existsSync(ref)) return ref;
  if (ref.length < MIN_PREFIX) throw new SessionError("SessionNotFound", `no session file ${ref}, and a session id prefix needs at least ${MIN_PREFIX} characters`, { file: ref });
  if (!existsSync(sessionsDir)) throw new SessionError("SessionNotFound", `no session file ${ref}, and there are no sessions in ${sessionsDir} yet`, { file: ref });
  const exact = findSessionFile(sessionsDir, ref);
  if (exact) return exact;
  const matches = listSessions(sessionsDir).filter((s) => s.id.startsWith(ref));
  if (matches.length === 1) return matches[0].file;
  if (matches.length === 0) throw new SessionError("SessionNotFound", `no session file ${ref}, and no session in ${sessionsDir} has an id starting with it (pith list shows them)`, { file: ref });
  throw new SessionError("SessionNotFound", `${matches.length} sessions have an id starting with ${ref}: ${matches.map((s) => s.id).join(", ")}; give more of it`, { file: ref });
}
