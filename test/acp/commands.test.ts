// The slash commands offered to ACP clients, and recognizing them in a prompt's text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { availableCommandsUpdate, parseCommand } from "../../src/acp/commands.js";
import { assertValidUpdate } from "../support/acp-schema.js";

test("the commands update lists compact and autocompact, without slashes, with input hints", () => {
  const update = availableCommandsUpdate();
  assertValidUpdate(update);
  assert.deepEqual(
    update.availableCommands.map((c) => [c.name, c.input?.hint]),
    [
      ["compact", "optional instructions for the summary"],
      ["autocompact", "on | off"],
    ],
  );
  for (const c of update.availableCommands) assert.ok(c.description.length > 10 && !c.name.startsWith("/"));
  update.availableCommands[0].input!.hint = "changed";
  assert.equal(availableCommandsUpdate().availableCommands[0].input?.hint, "optional instructions for the summary", "each update is a fresh copy");
});

test("/compact, with or without instructions", () => {
  assert.deepEqual(parseCommand("/compact"), { name: "compact" });
  assert.deepEqual(parseCommand("  /compact  "), { name: "compact" });
  assert.deepEqual(parseCommand("\n/compact keep the API decisions\nand the test plan "), { name: "compact", instructions: "keep the API decisions\nand the test plan" });
  assert.deepEqual(parseCommand("/compact\tfocus"), { name: "compact", instructions: "focus" });
});

test("/autocompact on | off, and a clear error for anything else", () => {
  assert.deepEqual(parseCommand("/autocompact on"), { name: "autocompact", enabled: true });
  assert.deepEqual(parseCommand("/autocompact OFF"), { name: "autocompact", enabled: false });
  assert.deepEqual(parseCommand(" /autocompact false "), { name: "autocompact", enabled: false });
  const missing = parseCommand("/autocompact");
  assert.ok(missing && "error" in missing && /on or off/.test(missing.error));
  const wrong = parseCommand("/autocompact sometimes");
  assert.ok(wrong && "error" in wrong && /sometimes/.test(wrong.error));
});

test("anything else is a prompt", () => {
  for (const text of ["/compactfoo", "/autocompacting on", "compact", "please /compact", "/Compact", "", "/", "/help", "//compact"]) {
    assert.equal(parseCommand(text), null, JSON.stringify(text));
  }
});
