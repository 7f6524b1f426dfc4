// session/list in pages. The list is newest first; a cursor names the last session of the page
// it ended (its modified time and id), so the next page starts right after it even when sessions
// were added or touched in between (a moved session may then show twice or not at all in that
// walk, as with any listing that changes under it; none is repeated within a page).
import type { SessionSummary } from "../session/list.js";

const PAGE_SIZE = 100;

export class BadCursor extends Error {}

type Key = { modified: string; id: string };

function encode(key: Key): string {
  return Buffer.from(JSON.stringify([key.modified, key.id]), "utf8").toString("base64url");
}

function decode(cursor: string): Key {
  try {
    const [modified, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof modified === "string" && typeof id === "string") return { modified, id };
  } catch {
    // falls through to the error below
  }
  throw new BadCursor("cursor: not one this agent gave out");
}

/** Newest first, then by id: the order pages follow. */
function before(a: Key, b: Key): boolean {
  return a.modified > b.modified || (a.modified === b.modified && a.id < b.id);
}

export function pageOf(all: readonly SessionSummary[], cursor: string | null | undefined, size = PAGE_SIZE): { page: SessionSummary[]; nextCursor?: string } {
  const sorted = [...all].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const after = cursor ? decode(cursor) : undefined;
  const rest = after ? sorted.filter((s) => before(after, s)) : sorted;
  const page = rest.slice(0, size);
  const last = page.at(-1);
  return rest.length > size && last ? { page, nextCursor: encode(last) } : { page };
}
