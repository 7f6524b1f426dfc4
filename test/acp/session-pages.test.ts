// session/list pages: every session exactly once across the pages, newest first, a cursor that
// keeps its place when newer sessions arrive, and a cursor this agent never gave is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BadCursor, pageOf } from "../../src/acp/session-pages.js";
import type { SessionSummary } from "../../src/session/list.js";

const summary = (i: number, modified: string): SessionSummary => ({ id: `s${String(i).padStart(3, "0")}`, file: `/f/${i}`, cwd: "/w", created: modified, modified, messageCount: 1, firstMessage: `m${i}` });

test("pages cover every session once, newest first; ties on modified are ordered by id", () => {
  const all = Array.from({ length: 25 }, (_, i) => summary(i, `2026-01-${String(1 + (i % 7)).padStart(2, "0")}T00:00:00.000Z`));
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const { page, nextCursor } = pageOf(all, cursor, 10);
    seen.push(...page.map((s) => s.id));
    cursor = nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.deepEqual([...seen].sort(), all.map((s) => s.id).sort(), "each exactly once");
  const order = seen.map((id) => all.find((s) => s.id === id)!.modified);
  assert.deepEqual(order, [...order].sort().reverse(), "newest first");
  assert.equal(pageOf(all, undefined, 25).nextCursor, undefined, "no cursor when everything fit");
});

test("a cursor keeps its place when newer sessions arrive; a foreign cursor is refused", () => {
  const all = Array.from({ length: 6 }, (_, i) => summary(i, `2026-01-0${i + 1}T00:00:00.000Z`));
  const first = pageOf(all, undefined, 3);
  assert.deepEqual(first.page.map((s) => s.id), ["s005", "s004", "s003"]);
  const grown = [summary(99, "2026-02-01T00:00:00.000Z"), ...all];
  assert.deepEqual(pageOf(grown, first.nextCursor, 3).page.map((s) => s.id), ["s002", "s001", "s000"]);
  assert.throws(() => pageOf(all, "not-a-cursor"), BadCursor);
  assert.throws(() => pageOf(all, Buffer.from("[1,2]").toString("base64url")), BadCursor);
});
