// `pith acp` keeps stderr quiet: editors (Emacs acp.el, agent-shell) show every stderr chunk to the
// user as an error or a notice. Started without an API key (normal: the offline scripted
// provider), a whole exchange says nothing on stderr, not even the SDK's "Got response to unknown
// request" for a client's stray response; a log level asked for gives the JSON logs as before.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test, type TestContext } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
import { tempDir } from "../support/tmp.js";

async function exchange(t: TestContext, env: Record<string, string | undefined>, args: string[] = []): Promise<string> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const a = await startAcp(t, { home, cwd, env, args });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "hello" }] });
  assert.ok(r.stopReason, "the prompt ends");
  // a response to no request of pith's (an editor answering one it was told is cancelled)
  a.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "no-such-request", result: {} })}\n`);
  await a.request(acp.methods.agent.session.list, {});
  const { code } = await a.end();
  assert.equal(code, 0, a.stderr());
  assert.deepEqual(a.violations, []);
  return a.stderr();
}

test("pith acp without an API key and without a log level: nothing on stderr", async (t) => {
  const stderr = await exchange(t, { PITH_LOG_LEVEL: undefined });
  assert.equal(stderr, "");
});

test("pith acp with PITH_LOG_LEVEL=info: the JSON logs, the missing key said; --log-level debug: the SDK's complaint too", async (t) => {
  const info = await exchange(t, { PITH_LOG_LEVEL: "info" });
  assert.notEqual(info, "");
  const lines = info.trim().split("\n").map((l) => JSON.parse(l) as { msg: string });
  assert.ok(lines.some((l) => /no ANTHROPIC_API_KEY/.test(l.msg)), info);
  assert.doesNotMatch(info, /unknown request/, "a client's stray response is debug");
  const debug = await exchange(t, { PITH_LOG_LEVEL: undefined }, ["--log-level", "debug"]);
  assert.ok(debug.trim().split("\n").some((l) => /Got response to unknown request/.test((JSON.parse(l) as { msg: string }).msg)), debug);
});

test("the acp logger without a level: errors only, each one plain line (no JSON), its error's message after a colon", () => {
  const logger = pathToFileURL(join(import.meta.dirname, "../../dist/src/log/logger.js")).href;
  const script = `
    const { createAcpLogger } = await import(${JSON.stringify(logger)});
    const log = createAcpLogger(undefined);
    log.info("started"); log.warn("a warning"); log.debug("details");
    log.error({ err: new Error("disk full\\nsecond line") }, "cannot append to the session");
    log.fatal("sessions did not close in time; exiting");`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { PATH: process.env.PATH } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "pith: cannot append to the session: disk full second line\npith: sessions did not close in time; exiting\n");
});
