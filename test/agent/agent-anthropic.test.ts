// The agent with the real SDK against the fake Messages API: a multi-tool run end to end, an
// overflow handed to the host's hook, and nothing from the SDK on stdout.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Agent } from "../../src/agent/agent.js";
import { AnthropicProvider } from "../../src/llm/anthropic.js";
import { ModelRegistry } from "../../src/llm/models.js";
import { SessionFile } from "../../src/session/index.js";
import { createCodingTools } from "../../src/tools/index.js";
import { promptTooLong, startFakeAnthropic, textReply, toolUseReply } from "../support/fake-anthropic.js";
import { orphans } from "../support/sessions.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const model = new ModelRegistry().resolve("claude-sonnet-5-5");

test("a multi-tool run through the real SDK: each tool result goes back in the next request", async (t) => {
  const server = await startFakeAnthropic();
  t.after(() => server.close());
  const cwd = tempDir(t);
  writeFileSync(join(cwd, "notes.md"), "alpha\nbeta\n");
  const session = SessionFile.create({ cwd, sessionsDir: tempDir(t) });
  t.after(() => session.close());
  server.enqueue(
    toolUseReply("read", { path: "notes.md" }, { text: "Reading." }),
    toolUseReply("bash", { command: "wc -l < notes.md" }),
    textReply("notes.md has 2 lines."),
  );
  const agent = new Agent({ session, provider: new AnthropicProvider({ apiKey: "k", baseURL: server.url }), model, tools: createCodingTools(), systemPrompt: "be useful", toolContext: { cwd } });
  const result = await agent.run({ text: "How long is notes.md?" });
  assert.equal(result.stopReason, "stop");
  assert.equal(server.requests.length, 3);
  const second = server.requests[1].body.messages;
  assert.equal(second.at(-1).content[0].type, "tool_result");
  assert.match(JSON.stringify(second.at(-1).content[0].content), /alpha/);
  assert.deepEqual(server.requests[1].body.tools.map((x: { name: string }) => x.name), ["read", "bash", "edit", "write", "grep", "find", "ls"]);
  assert.equal(server.requests[1].body.tools[0].input_schema.type, "object");
  const third = server.requests[2].body.messages;
  assert.match(JSON.stringify(third.at(-1).content[0].content), /\b2\b/);
  const msgs = session.buildContext().messages;
  assert.deepEqual(msgs.map((m) => m.role), ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
  assert.deepEqual(orphans(msgs), []);
});

test("an overflow reaches the host's hook as class overflow; after the hook acts the turn is retried", async (t) => {
  const server = await startFakeAnthropic();
  t.after(() => server.close());
  const session = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => session.close());
  server.enqueue(promptTooLong(), textReply("fits now"));
  const seen: string[] = [];
  const agent = new Agent({
    session,
    provider: new AnthropicProvider({ apiKey: "k", baseURL: server.url }),
    model,
    tools: [],
    systemPrompt: "",
    toolContext: { cwd: "/p" },
    hooks: { onModelError: async (e) => (seen.push(e.errorClass), { action: e.errorClass === "overflow" ? "retry" : "stop" }) },
  });
  const result = await agent.run({ text: "a long story" });
  assert.deepEqual(seen, ["overflow"]);
  assert.equal(result.stopReason, "stop");
  assert.deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
});

test("the SDK's own logging never reaches stdout, even at debug level", async (t) => {
  const server = await startFakeAnthropic();
  t.after(() => server.close());
  server.enqueue(textReply("hello"));
  const script = `
    import { AnthropicProvider } from "./src/llm/anthropic.ts";
    import { ModelRegistry } from "./src/llm/models.ts";
    import { createLogger } from "./src/log/logger.ts";
    const p = new AnthropicProvider({ apiKey: "k", baseURL: ${JSON.stringify(server.url)}, logger: createLogger("debug") });
    for await (const ev of p.stream({ model: new ModelRegistry().resolve("claude-sonnet-4-5"), systemPrompt: "", messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [], maxTokens: 100, signal: new AbortController().signal })) {}
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, env: { ...process.env, ANTHROPIC_LOG: "debug" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((r) => child.on("close", r));
  assert.equal(code, 0, err);
  assert.equal(out, "", "stdout stays empty");
  assert.match(err, /"name":"pith"/, "the SDK's debug lines went to the pino logger on stderr");
});
