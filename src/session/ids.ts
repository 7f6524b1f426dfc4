import { randomBytes } from "node:crypto";
import { SessionError } from "./session-error.js";

/** A fresh 8-hex-char entry id not in `taken`. Pi does the same; it falls back to a UUID after collisions. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}

/**
 * What a session id may be: pith and Pi make UUIDs; this is a little wider (a hand-made or
 * future id) but holds no `.`, `/`, `\` or NUL, so a file name built from it stays in its folder.
 * The protocol checks the same pattern on a client's params (protocol/messages.ts SessionId).
 */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

function validSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID.test(id);
}

/**
 * The id, or SessionError "InvalidSessionId" (-32602 to a client; `data.sessionId` shows at most
 * 200 characters of it). Called wherever an id arrives (a client, a file header, the database)
 * before a path is built from it.
 */
export function checkSessionId(id: unknown, where: string): string {
  if (validSessionId(id)) return id;
  const shown = typeof id === "string" ? id.slice(0, 200) : String(id);
  throw new SessionError("InvalidSessionId", `${where}: not a valid session id: ${JSON.stringify(shown)} (1 to 128 of A-Z a-z 0-9 _ -)`, { sessionId: shown });
}
