// Checks updates against the ACP SDK's own zod schema for SessionUpdate: the one its client side
// parses every session/update with (the package does not export it, so it is imported by file).
// That schema is forgiving on purpose: it drops unknown keys and replaces a bad optional field
// (a kind it does not know, a negative line) with nothing instead of failing. A mistake of ours
// would then vanish on the client without a word, so an update passes here only when it parses
// AND comes out of the parse unchanged.
import assert from "node:assert/strict";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { zSessionNotification, zSessionUpdate } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

/** JSON as sent on the wire: undefined-valued keys vanish. */
function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Why `update` is not a valid, lossless SessionUpdate, or undefined when it is. */
export function updateProblem(update: unknown): string | undefined {
  const parsed = zSessionUpdate.safeParse(wire(update));
  if (!parsed.success) return `does not parse: ${parsed.error.message}`;
  try {
    assert.deepEqual(wire(parsed.data), wire(update));
  } catch (err) {
    return `the schema changed it (a field dropped or defaulted):\n${(err as Error).message}`;
  }
  const notification = zSessionNotification.safeParse({ sessionId: "s-1", update: wire(update) });
  if (!notification.success) return `not a valid session/update notification: ${notification.error.message}`;
  return undefined;
}

export function assertValidUpdate(update: unknown, where = ""): asserts update is SessionUpdate {
  const problem = updateProblem(update);
  assert.equal(problem, undefined, `${where ? `${where}: ` : ""}invalid update ${JSON.stringify(update).slice(0, 400)}\n${problem}`);
}

/** Every update valid; returns them for further checks. */
export function assertValidUpdates(updates: readonly unknown[], where = ""): SessionUpdate[] {
  updates.forEach((u, i) => assertValidUpdate(u, `${where}[${i}]`));
  return updates as SessionUpdate[];
}

/** The updates of one kind. */
export function ofKind<K extends SessionUpdate["sessionUpdate"]>(updates: readonly SessionUpdate[], kind: K): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return updates.filter((u): u is Extract<SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
}

/** The text of text chunks, joined. */
export function chunkText(updates: readonly SessionUpdate[], kind: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk"): string {
  return ofKind(updates, kind)
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");
}
