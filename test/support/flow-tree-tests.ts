// The daemon flow of a tree move: navigateTree with a branch summary, then back to a user message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { textReply } from "./fake-anthropic.js";
import { asEvent, asMessage, byType } from "./daemon-client.js";
import type { FlowSessions } from "./flow-sessions.js";

/** A tree move with a branch summary, over the transport. */
export function registerTreeFlowTests(flow: FlowSessions): void {
  test(`${flow.transport}: navigateTree {summarize: true}: branch_summary_start/end, the summary entry becomes the leaf`, () => navigateWithBranchSummary(flow));
}

async function navigateWithBranchSummary(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  const first = await flow.exchange(sessionId, "first question", textReply("first answer"));
  const second = await flow.exchange(sessionId, "second question", textReply("second answer"));
  const a1 = byType(first, "message_end").find((e) => e.message.role === "assistant")!.entryId!;
  const u2 = byType(second, "message_end").find((e) => e.message.role === "user")!.entryId!;
  const a2 = byType(second, "message_end").find((e) => e.message.role === "assistant")!.entryId!;
  const firstRequest = fake.requests.length;
  fake.enqueue(textReply("BRANCH-SUMMARY-B: a second question was answered."));
  const from = peer.mark();
  const moved = await peer.request("navigateTree", { sessionId, targetId: a1, summarize: true, instructions: "mention GIRAFFE-7" });
  assert.equal(typeof moved.branchSummaryEntryId, "string");
  assert.equal(moved.leafId, moved.branchSummaryEntryId);
  assert.equal(moved.editorText, undefined);
  const events = peer.sessionEvents(sessionId, from);
  assert.deepEqual(events.map((e) => e.type), ["branch_summary_start", "branch_summary_end"]);
  const [start, end] = [asEvent(events[0], "branch_summary_start"), asEvent(events[1], "branch_summary_end")];
  assert.equal(start.targetId, a1);
  assert.equal(start.fromId, a2);
  assert.equal(end.aborted, false);
  assert.equal(end.entryId, moved.branchSummaryEntryId);
  assert.match(end.summary!, /BRANCH-SUMMARY-B/);
  const sent = fake.requests.slice(firstRequest);
  assert.equal(sent.length, 1);
  assert.match(sent[0].rawBody, /second question/, "the branch left behind is summarized");
  assert.match(sent[0].rawBody, /GIRAFFE-7/, "with the instructions");

  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "branchSummary"]);
  assert.match(asMessage(messages[2], "branchSummary").summary, /BRANCH-SUMMARY-B/);
  const tree = await peer.request("getTree", { sessionId });
  assert.equal(tree.leafId, moved.branchSummaryEntryId);
  const node = tree.entries.find((e) => e.id === moved.branchSummaryEntryId);
  assert.ok(node);
  assert.equal(node.type, "branch_summary");
  assert.equal(node.parentId, a1);
  assert.ok(tree.entries.some((e) => e.id === a2), "the old branch stays in the tree");
  assert.equal((await peer.request("getState", { sessionId })).leafId, moved.branchSummaryEntryId);

  // moving to a user message: its text comes back for the editor, the leaf is its parent
  const back = await peer.request("navigateTree", { sessionId, targetId: u2 });
  assert.deepEqual(back, { leafId: a1, editorText: "second question" });
  assert.equal(fake.remaining(), 0);
}
