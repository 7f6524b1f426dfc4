// Whose context files pith puts into the system prompt. AGENTS.md / CLAUDE.md are read from the
// cwd and every parent up to /, so a parent another user can write (/tmp, a shared /srv) would
// let that user plant instructions for everyone who works below it. A context file is read only
// from a directory owned by the user the daemon runs as (or root) that no one else may write,
// and only when the file itself is owned by that user (or root) and not writable by others: as
// OpenSSH's StrictModes decides whether to trust authorized_keys.
//
// Group write is allowed where the group is the user's own (a user private group, as Debian and
// Ubuntu make: their umask 002 leaves every project group-writable): the group has the user as
// its only member, from /etc/passwd and /etc/group, as Debian's OpenSSH decides. A group known
// only to a directory service (LDAP) cannot be checked this way and counts as shared.
import { readFileSync, type Stats } from "node:fs";

const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;

/** The user the daemon runs as, or undefined where there are no owners to check (Windows). */
function selfUid(): number | undefined {
  return typeof process.geteuid === "function" ? process.geteuid() : undefined;
}

function ownedBySelfOrRoot(stats: Stats, uid: number): boolean {
  return stats.uid === uid || stats.uid === 0;
}

/** Why context files in a directory with these stats are not read, or undefined. */
export function untrustedDirectory(stats: Stats): string | undefined {
  const uid = selfUid();
  if (uid === undefined) return undefined;
  if (!ownedBySelfOrRoot(stats, uid)) return `its directory belongs to another user (uid ${stats.uid})`;
  if (stats.mode & OTHER_WRITE) return `its directory is writable by every user${stats.mode & 0o1000 ? " (sticky, as /tmp)" : ""}`;
  if (stats.mode & GROUP_WRITE && !groupIsOnly(stats.gid, uid)) return `its directory is writable by group ${stats.gid}, which has other members`;
  return undefined;
}

/** Why a context file with these stats (of the file itself, through its descriptor) is not read, or undefined. */
export function untrustedFile(stats: Stats): string | undefined {
  const uid = selfUid();
  if (uid === undefined) return undefined;
  if (!ownedBySelfOrRoot(stats, uid)) return `it belongs to another user (uid ${stats.uid})`;
  if (stats.mode & OTHER_WRITE) return "it is writable by every user";
  if (stats.mode & GROUP_WRITE && !groupIsOnly(stats.gid, uid)) return `it is writable by group ${stats.gid}, which has other members`;
  return undefined;
}

/** Lines of a colon-separated database (/etc/passwd, /etc/group), split; none when unreadable. */
function records(file: string): string[][] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.length > 0 && !l.startsWith("#"))
    .map((l) => l.split(":"));
}

/**
 * Whether `uid` is the one member of group `gid`: every user whose primary group it is, and
 * every listed member, is that user, and there is at least one (an empty group is typically a
 * setgid program's, not the user's).
 */
function groupIsOnly(gid: number, uid: number): boolean {
  const users = records("/etc/passwd");
  const self = users.find((u) => Number(u[2]) === uid);
  if (!self) return false;
  let members = 0;
  for (const u of users) {
    if (Number(u[3]) !== gid) continue;
    if (Number(u[2]) !== uid) return false;
    members++;
  }
  const group = records("/etc/group").find((g) => Number(g[2]) === gid);
  if (!group) return false;
  for (const name of (group[3] ?? "").split(",").filter(Boolean)) {
    if (name !== self[0]) return false;
    members++;
  }
  return members > 0;
}
