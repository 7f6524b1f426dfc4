// The editor's terminal (issue 22, item 8): a client that advertises `terminal` runs the model's
// bash itself (terminal/create, wait_for_exit, output, release; kill on cancel and timeout), the
// tool call carries the terminal's id so the editor shows it live, and the result the model gets
// is built from the terminal's output and exit status. The command the editor runs is pith's own
// command line: bwrap with pith's sandbox in a sandboxed session, and never with more of the
// environment than pith gives its commands (the editor adds its own: the launcher drops it).
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
import { startAcp } from "../support/acp-daemon.js";
import { testTerminals } from "../support/acp-terminals.js";
import { FLOW_SETTINGS, SMALL_MODEL, poll, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, hang, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const sandbox = sandboxAvailable();
const noBwrap = sandbox.ok ? false : `bubblewrap cannot run here (${sandbox.reason}): the sandboxed terminal is not tested`;

/** What the editor's own environment holds and the model's commands must not see. */
const EDITOR_ENV = { EDITOR_ONLY_SECRET: "from-the-editor", ANTHROPIC_API_KEY: "sk-editor-key" };

function lastToolResult(): string {
  const last = fake.requests.at(-1)!.body.messages.at(-1);
  const block = last.content.find((b: { type?: string }) => b.type === "tool_result");
  return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
}

/** Processes running `sleep <arg>`. */
function sleepers(arg: string): number {
  let n = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${arg}\0`) n++;
    } catch {
      // gone
    }
  }
  return n;
}

function setup(t: { after(fn: () => void): void }, settings: object = {}) {
  const home = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id, ...settings });
  return { home, cwd: realpathSync(tempDir(t)) };
}

test("terminal advertised, sandboxed session: terminal/create runs bwrap with pith's sandbox; the tool call shows the terminal; output and exit code reach the model; the terminal is released", { skip: noBwrap }, async (t) => {
  const { home, cwd } = setup(t);
  t.after(() => drainFake(fake));
  writeFileSync(join(home, "token"), "pith's secret\n");
  const terms = testTerminals(EDITOR_ENV);
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const command = `echo "hello from $(pwd)"; echo "editor secret: \${EDITOR_ONLY_SECRET:-none}, key: \${ANTHROPIC_API_KEY:-none}"; test -e ${home}/token && echo "token visible" || echo "token hidden"; echo "cgroups: $(grep -c pith- /proc/self/cgroup) processes: $(ulimit -u)"; exit 3`;
  fake.enqueue(toolUseReply("bash", { command }), textReply("it failed"));
  const end = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  assert.equal(end.stopReason, "end_turn");

  assert.deepEqual(
    terms.requests.map((r) => r.method),
    ["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"],
  );
  const create = terms.requests[0].params as acp.CreateTerminalRequest;
  assert.equal(create.sessionId, s.sessionId);
  assert.equal(create.cwd, cwd);
  assert.equal(create.outputByteLimit, 4 * 1024 * 1024, "pith's output cap (100 MiB), held to what one terminal/output answer can carry back");
  // pith's launcher, then the sandbox's command line: bwrap with pith's arguments
  assert.equal(create.command, "/bin/sh");
  const args = create.args ?? [];
  const bwrap = args.indexOf("bwrap");
  assert.ok(bwrap > 0, `bwrap in ${JSON.stringify(args)}`);
  const sandboxed = args.slice(bwrap);
  assert.deepEqual(sandboxed.slice(0, 4), ["bwrap", "--ro-bind", "/", "/"]);
  for (const flag of ["--unshare-pid", "--die-with-parent", "--unshare-net", "--new-session", "--info-fd"]) assert.ok(sandboxed.includes(flag), flag);
  assert.ok(sandboxed.at(-2)?.endsWith(command), "the model's command runs inside, last");
  // the cwd is bound by a descriptor the launcher opens from the daemon's own (sandbox-pins.ts)
  assert.deepEqual(sandboxed.slice(sandboxed.indexOf("--bind-fd"), sandboxed.indexOf("--bind-fd") + 3), ["--bind-fd", "6", cwd]);
  assert.match(args[1], /6<"\/proc\/\d+\/fd\/\d+"/, "the launcher opens it");
  const env = Object.fromEntries((create.env ?? []).map((v) => [v.name, v.value]));
  assert.ok(env.PATH, "the allow-listed environment goes with the request");
  assert.equal(env.ANTHROPIC_API_KEY, undefined, "pith's key is not in it");
  assert.equal(env.PITH_HOME, undefined);

  const terminalId = [...terms.running.keys()][0];
  const shown = a.since(0, s.sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "terminal" && c.terminalId === terminalId));
  assert.ok(shown, "a tool_call_update carries the terminal");
  const why = a.since(0, s.sessionId).find(
    (u) => u.sessionUpdate === "tool_call_update" && u.content?.[0]?.type === "terminal" && u.content.some((c) => c.type === "content" && c.content.type === "text" && /exit code 3/.test(c.content.text)),
  );
  assert.ok(why, "the reason it failed is shown beside the terminal, before it is released");
  const last = a.since(0, s.sessionId).filter((u) => u.sessionUpdate === "tool_call_update").at(-1);
  assert.deepEqual(last, { sessionUpdate: "tool_call_update", toolCallId: (why as { toolCallId: string }).toolCallId, status: "failed" }, "the end only sets the status");

  const result = lastToolResult();
  assert.match(result, new RegExp(`hello from ${cwd}`));
  assert.match(result, /editor secret: none, key: none/, "the editor's own environment stays out");
  assert.match(result, /token hidden/, "pith's home is hidden in the sandbox");
  // the limits hold one way or the other: the command's cgroup (the launcher joined it), or the rlimits
  const limits = /cgroups: (\d+) processes: (\w+)/.exec(result);
  assert.ok(limits && (Number(limits[1]) > 0 || limits[2] === "512"), `limits applied: ${limits?.[0]}`);
  assert.match(result, /Command failed with exit code 3/);
  assert.deepEqual(a.violations, []);
  assert.deepEqual(a.wireProblems(), []);
  await a.end();
});

test("terminal advertised, sandboxed session: descriptors the editor leaks into its terminal (fds 7 and 25) do not reach the command", { skip: noBwrap }, async (t) => {
  const { home, cwd } = setup(t);
  t.after(() => drainFake(fake));
  const leaked = [openSync(join(home, "editor-file-a"), "w"), openSync(join(home, "editor-file-b"), "w")];
  t.after(() => leaked.forEach((fd) => closeSync(fd)));
  const terms = testTerminals(EDITOR_ENV, { 7: leaked[0], 25: leaked[1] });
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const command = "ls -l /proc/self/fd | sed -n 's/.* \\([0-9][0-9]*\\) -> \\(.*\\)/fd \\1 -> \\2/p'";
  fake.enqueue(toolUseReply("bash", { command }), textReply("listed"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "list them" }] });
  const result = lastToolResult().replace(/\\n/g, "\n");
  assert.match(result, /fd 0 -> /, result);
  const extra = [...result.matchAll(/fd (\d+) -> ([^\s"]*)/g)].filter(([, n, target]) => Number(n) > 2 && !/^\/proc\/\d+\/fd$/.test(target));
  assert.deepEqual(extra.map(([line]) => line), [], `only fds 0-2 reach the command: ${result}`);
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("terminal advertised: session/cancel kills the command and releases the terminal", { skip: noBwrap }, async (t) => {
  const { home, cwd } = setup(t);
  t.after(() => drainFake(fake));
  const terms = testTerminals();
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("bash", { command: "echo started; sleep 61.2345" }), hang());
  const prompted = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  await a.waitUpdate((u) => u.sessionUpdate === "tool_call_update" && !!u.content?.some((c) => c.type === "terminal"), "the terminal in the tool call");
  const running = [...terms.running.values()][0];
  await poll(() => (running.output.toString().includes("started") ? true : undefined), "the command to start");
  await a.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
  assert.equal((await prompted).stopReason, "cancelled");
  await poll(() => (terms.requests.some((r) => r.method === "terminal/release") ? true : undefined), "terminal/release");
  const methods = terms.requests.map((r) => r.method);
  assert.ok(methods.indexOf("terminal/kill") > 0 && methods.indexOf("terminal/kill") < methods.indexOf("terminal/release"), methods.join(", "));
  assert.ok(running.exit, "the command is gone");
  await poll(() => (sleepers("61.2345") === 0 ? true : undefined), "no process of the command left");
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("terminal advertised: a timeout kills the command in the terminal and says so", { skip: noBwrap }, async (t) => {
  const { home, cwd } = setup(t);
  t.after(() => drainFake(fake));
  const terms = testTerminals();
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("bash", { command: "sleep 60", timeout: 1 }), textReply("too slow"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  assert.match(lastToolResult(), /Command timed out after 1 seconds/);
  // pith asks the editor to kill and kills the sandbox's processes itself: the exit may come first
  const methods = terms.requests.map((r) => r.method);
  assert.deepEqual(methods.slice(0, 2), ["terminal/create", "terminal/wait_for_exit"]);
  assert.deepEqual(methods.slice(2, 4).sort(), ["terminal/kill", "terminal/output"]);
  assert.deepEqual(methods.slice(4), ["terminal/release"]);
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("terminal advertised, unsandboxed session: the editor runs `shell -c command` through pith's launcher, with pith's environment only", async (t) => {
  const { home, cwd } = setup(t, { sandbox: { mode: "off" } });
  t.after(() => drainFake(fake));
  const terms = testTerminals(EDITOR_ENV);
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const command = `printf 'out\\n'; printf 'err\\n' >&2; echo "secret=\${EDITOR_ONLY_SECRET:-none} key=\${ANTHROPIC_API_KEY:-none}"`;
  fake.enqueue(toolUseReply("bash", { command }), textReply("ok"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  const create = terms.requests[0].params as acp.CreateTerminalRequest;
  assert.equal(create.args?.includes("bwrap"), false);
  assert.equal(create.args?.at(-1), `exec 2>&1; ${command}`);
  const result = lastToolResult();
  assert.match(result, /out\\nerr\\nsecret=none key=none/);
  const completed = a.since(0, s.sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  assert.ok(completed);
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("terminal advertised, sandbox with its isolated network: slirp4netns joins the command's namespace before the command starts", { skip: noBwrap || (!isolatedNetworkAvailable() && "slirp4netns is not installed: the isolated network is not tested") }, async (t) => {
  const { home, cwd } = setup(t, { sandbox: { network: true } });
  t.after(() => drainFake(fake));
  const terms = testTerminals();
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("bash", { command: "grep -c tap0 /proc/net/dev" }), textReply("ok"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  const result = lastToolResult();
  assert.match(result, /"text":"1"/, "the command saw slirp4netns's tap0");
  assert.doesNotMatch(result, /network could not be started/);
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("terminal advertised: output past the limit is cut by the editor from the start; the model gets the tail, the spill file and a note saying so", async (t) => {
  const { home, cwd } = setup(t, { sandbox: { mode: "off", limits: { outputMB: 1 } } });
  t.after(() => drainFake(fake));
  const terms = testTerminals();
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { terminal: true }, handlers: terms.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("bash", { command: "seq 1 300000" }), textReply("ok"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "run it" }] });
  assert.equal((terms.requests[0].params as acp.CreateTerminalRequest).outputByteLimit, 1024 * 1024);
  const result = lastToolResult();
  assert.match(result, /300000/, "the tail");
  assert.match(result, /Output truncated.*Full output: \//);
  assert.match(result, /The editor kept only the last 1 MB of the output/);
  assert.deepEqual(a.violations, []);
  await a.end();
});
