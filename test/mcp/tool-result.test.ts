import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { toolOutputOf, type McpResultDetails } from "../../src/mcp/tool-result.js";
import { tempDir } from "../support/tmp.js";

const NAMES = { server: "notes", tool: "t" };
const text = (o: ReturnType<typeof toolOutputOf>) => o.content.map((b) => (b.type === "text" ? b.text : `<${b.type}>`)).join("|");

test("text, images and resources become blocks; what the model cannot take is named, not dropped", () => {
  const out = toolOutputOf(
    {
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "note://x", text: "resource text" } },
        { type: "resource", resource: { uri: "bin://y", blob: "aGk=", mimeType: "application/zip" } },
        { type: "resource_link", uri: "file:///z", name: "z" },
      ],
    },
    NAMES,
    undefined,
  );
  assert.equal(
    text(out),
    "one\ntwo\n[audio (audio/wav, 4 B as base64) the model cannot hear]\n[resource note://x]\nresource text\n[binary resource bin://y (application/zip, 4 B as base64)]\n[resource file:///z (z)]|<image>",
  );
  assert.deepEqual((out.details as McpResultDetails).mcp, NAMES);
});

test("structuredContent alone is given as JSON; nothing at all is said to be nothing", () => {
  assert.equal(text(toolOutputOf({ content: [], structuredContent: { a: 1 } }, NAMES, undefined)), '{\n  "a": 1\n}');
  assert.equal(text(toolOutputOf({ content: [] }, NAMES, undefined)), "(no output)");
});

test("a text past the limit: head and tail with a note naming the file that holds all of it", (t) => {
  const dir = tempDir(t);
  const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i}`);
  const whole = lines.join("\n");
  const out = toolOutputOf({ content: [{ type: "text", text: whole }] }, NAMES, dir);
  const shown = text(out);
  assert.ok(Buffer.byteLength(shown) < 52 * 1024, `${Buffer.byteLength(shown)} bytes`);
  assert.ok(shown.startsWith("line 0\nline 1\n"));
  assert.ok(shown.endsWith("line 29998\nline 29999"));
  const details = out.details as McpResultDetails;
  assert.equal(details.truncated?.totalLines, 30_000);
  const file = details.truncated?.fullOutputPath;
  assert.ok(file?.startsWith(dir));
  assert.match(shown, new RegExp(`The full output is in ${file!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  assert.equal(readFileSync(file!, "utf8"), whole);
});

test("an image over 5 MB is named instead of sent", () => {
  const out = toolOutputOf({ content: [{ type: "image", data: "A".repeat(6 * 1024 * 1024), mimeType: "image/png" }] }, NAMES, undefined);
  assert.deepEqual(out.content.map((b) => b.type), ["text"]);
  assert.match(text(out), /left out: over the 5 MB/);
});
