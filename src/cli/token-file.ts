// `$PITH_HOME/token`: the client token `pith serve` uses when none is given. It is made once and
// kept, so a restart does not lock out an open browser tab or a script; `pith token --rotate`
// replaces it. A token given to a daemon (--token, --token-file, PITH_TOKEN) never touches the
// file: a second daemon started with its own token must not overwrite the first one's.
//
// Two daemons starting at once must agree on one token: the new token is written (0600, synced)
// to a private temporary file, then hard-linked to `token`. link(2) fails when `token` exists, so
// exactly one of them creates it and the other reads what the winner wrote, whole.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { checkTokenStrength, generateToken, writeTokenFile } from "../rpc/auth.js";

export interface TokenFile {
  token: string;
  path: string;
  /** made by this call */
  created: boolean;
}

/** A token file that holds no valid token: said, never silently replaced (rotate does that). */
export class BadTokenFile extends Error {
  constructor(readonly path: string) {
    super(`${path} does not hold a token (at least 16 of A-Z a-z 0-9 _ -): run \`pith token --rotate\` to make a new one`);
    this.name = "BadTokenFile";
  }
}

function tokenFilePath(pithHome: string): string {
  return join(pithHome, "token");
}

/** The token in the file, undefined when there is no file; BadTokenFile when it holds something else. */
function readExisting(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const token = text.trim();
  if (checkTokenStrength(token, path) !== undefined) throw new BadTokenFile(path);
  // a file copied in with looser permissions is made private again
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return token;
}

/** The token of `$PITH_HOME/token`, made now (once, race-free) when there is none. */
export function ensureTokenFile(pithHome: string): TokenFile {
  const path = tokenFilePath(pithHome);
  const existing = readExisting(path);
  if (existing !== undefined) return { token: existing, path, created: false };
  mkdirSync(pithHome, { recursive: true, mode: 0o700 });
  const token = generateToken();
  const tmp = join(pithHome, `.token.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  let created = false;
  try {
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, token);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, path);
    created = true;
  } catch (err) {
    // another daemon made it first: use its token
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  if (created) return { token, path, created };
  const theirs = readExisting(path);
  if (theirs === undefined) throw new Error(`${path} vanished while it was being made`);
  return { token: theirs, path, created: false };
}

/** A new token over the old one (atomically: a reader sees the old or the new, whole). */
export function rotateTokenFile(pithHome: string): TokenFile {
  const token = generateToken();
  return { token, path: writeTokenFile(pithHome, token), created: true };
}
