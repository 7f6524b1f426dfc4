// The bearer token that guards the WebSocket transport.
//
// A token is 32 random bytes in base64url (43 characters of [A-Za-z0-9_-]): that alphabet is a
// subset of the RFC 7230 "token" characters, so `pith.bearer.<token>` is a valid
// Sec-WebSocket-Protocol entry (browsers cannot set an Authorization header on a WebSocket).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

const TOKEN_RE = /^[A-Za-z0-9_-]+$/;

/** 32 random bytes, base64url without padding. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Non-empty and only [A-Za-z0-9_-], so it fits in a subprotocol entry and an HTTP header. */
export function validToken(s: unknown): s is string {
  return typeof s === "string" && s.length > 0 && TOKEN_RE.test(s);
}

/**
 * The shortest token pith accepts from a user (--token, PITH_TOKEN, a token file). 16 characters
 * of the 64-letter alphabet are 96 bits: out of reach of guessing even without the failed-auth
 * limit (ws-auth-failures.ts). Generated tokens are 43.
 */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Why a token given by the user cannot guard the daemon, or undefined when it can. `source` names
 * where it came from, for the message ("--token", "PITH_TOKEN", "the token file /x/token").
 * Callers refuse to start with this message (a usage error, exit 2).
 */
export function checkTokenStrength(token: string, source: string): string | undefined {
  if (!validToken(token)) return `the token from ${source} must be non-empty and use only A-Z a-z 0-9 _ -`;
  if (token.length < MIN_TOKEN_LENGTH) {
    return `the token from ${source} is ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are needed (leave it out and pith generates one)`;
  }
  return undefined;
}

/**
 * Constant-time comparison. Both sides are hashed first so the buffers handed to
 * timingSafeEqual always have the same length and the time does not depend on the length of the
 * guess either.
 */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/**
 * Writes `<pithHome>/token` (the token alone, no trailing newline) with mode 0600 and returns its
 * path. The directory is created (0700) if needed. The file is written to a fresh 0600 temporary
 * file and renamed over the old one, so the token never sits in a file with looser permissions;
 * the final chmod covers an unusual umask.
 */
export function writeTokenFile(pithHome: string, token: string): string {
  if (!validToken(token)) throw new Error("writeTokenFile: invalid token");
  mkdirSync(pithHome, { recursive: true, mode: 0o700 });
  const path = join(pithHome, "token");
  const tmp = join(pithHome, `.token.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, token);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* ignore */
    }
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* ignore */
    }
    throw err;
  }
  chmodSync(path, 0o600);
  return path;
}

/** Reads `<pithHome>/token` (trimmed); undefined if missing or not a valid token. */
export function readTokenFile(pithHome: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(pithHome, "token"), "utf8");
  } catch {
    return undefined;
  }
  const token = text.trim();
  return validToken(token) ? token : undefined;
}
