// Issue 32, row 3: the editor's file access raced. Through the real `pith acp` daemon, a client
// that advertises fs.readTextFile / fs.writeTextFile and serves them as an editor does (it opens
// the path it is given, following links), while a loop here (another session's bash, in real
// life) keeps swapping `d` between a directory of the cwd and a link to pith's home, by rename.
// The model writes `d/settings.json` and reads `d/token` again and again. When pith checked the
// path and then handed it to the editor, the editor opened whatever `d` was at that instant:
// about one in ten of the writes it was handed replaced pith's settings.json, and reads handed
// the model pith's token. Now pith
// opens and checks through its own descriptors, and the editor's fs is not used for the model's
// file tools: nothing lands in pith's home, the token is never in a result, and a plain write
// in the cwd is on disk.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
import { writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic, type ReplyScenario } from "../support/fake-anthropic.js";
import { toolResultsSent } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

// the 100 writes and 60 reads, three times over: before the fix each hundred gave about
// three landings in pith's home, and now and then none; three hundred gave 8 to 15, every run
const PROMPTS = 3;
const WRITES = 100;
const READS = 60;
const BIG_MODEL = { id: "big-model", contextWindow: 1_000_000, maxOutputTokens: 4_000 };
const SECRET = "pith-home-token-7c1d9e";
/** a safety stop for the swapper only; the test's outcome never depends on it */
const SWAP_LIMIT = 2_000_000;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/**
 * An editor's fs as editors implement it: the path is opened as given (links followed). A write
 * that replaced pith's settings is counted and undone at once, so the daemon keeps its settings
 * and every later landing is seen too.
 */
function linkFollowingEditor(homeSettings: string, original: string) {
  const seen = { reads: 0, writes: 0, landedInHome: 0 };
  const handlers = (app: acp.ClientApp) => {
    app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      seen.reads++;
      try {
        return { content: await readFile(params.path, "utf8") };
      } catch {
        throw acp.RequestError.resourceNotFound(params.path);
      }
    });
    app.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      seen.writes++;
      try {
        await writeFile(params.path, params.content);
      } catch (err) {
        throw acp.RequestError.internalError({ message: (err as Error).message });
      }
      if (readFileSync(homeSettings, "utf8") === params.content) {
        seen.landedInHome++;
        writeFileSync(homeSettings, original);
      }
      return {};
    });
  };
  return { seen, handlers };
}

/**
 * Swaps `d` (a directory) and `dl` (a link to pith's home) by rename until stopped. Between two
 * renames `d` is missing for a moment, and a write then makes it (mkdir -p of the parents): that
 * new directory is moved aside and the swap goes on.
 */
function startSwapper(cwd: string) {
  const d = join(cwd, "d");
  const kept = join(cwd, "d.dir");
  const link = join(cwd, "dl");
  let stopping = false;
  let swaps = 0;
  let made = 0;
  const place = async (from: string, to: string) => {
    for (;;) {
      try {
        return await rename(from, to);
      } catch (err) {
        if (!["EISDIR", "ENOTEMPTY", "EEXIST", "ENOTDIR"].includes((err as NodeJS.ErrnoException).code ?? "")) throw err;
        await rename(to, join(cwd, `made-${made++}`));
      }
    }
  };
  // each state lasts at least one turn of the event loop, which serves the editor's requests
  const turn = () => new Promise((r) => setImmediate(r));
  const loop = (async () => {
    while (!stopping && swaps < SWAP_LIMIT) {
      await place(d, kept);
      await place(link, d); // d is now the link to pith's home
      await turn();
      await place(d, link);
      await place(kept, d); // d is the directory again
      await turn();
      swaps++;
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      return swaps;
    },
  };
}

test(`${PROMPTS} × ${WRITES} writes of d/settings.json and ${READS} reads of d/token while d is swapped with a link to pith's home: nothing lands there, the token never reaches the model`, { timeout: 300_000 }, async (t) => {
  const home = realpathSync(tempDir(t));
  const cwd = realpathSync(tempDir(t));
  // a long run of calls: no compaction takes one of the model's scripted replies
  writeSettings(home, { models: [BIG_MODEL], model: BIG_MODEL.id, compaction: { enabled: false } });
  writeFileSync(join(home, "token"), SECRET);
  const homeSettings = join(home, "settings.json");
  const original = readFileSync(homeSettings, "utf8");
  mkdirSync(join(cwd, "d"));
  writeFileSync(join(cwd, "d", "settings.json"), "{}\n");
  writeFileSync(join(cwd, "d", "token"), "inside-token\n");
  symlinkSync(home, join(cwd, "dl"));

  const editor = linkFollowingEditor(homeSettings, original);
  t.after(() => drainFake(fake));
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } }, handlers: editor.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });

  // one prompt of the model's: WRITES writes, with READS reads spread among them
  const turnCalls = (): ReplyScenario[] => {
    const calls: ReplyScenario[] = [];
    for (let i = 0, r = 0; i < WRITES; i++) {
      calls.push(toolUseReply("write", { path: "d/settings.json", content: JSON.stringify({ sandbox: { mode: "off" }, round: i }) }));
      if (r < READS && (i * READS) / WRITES >= r) {
        calls.push(toolUseReply("read", { path: "d/token" }));
        r++;
      }
    }
    return calls;
  };
  const first = fake.requests.length;
  const homeFiles = readdirSync(home).sort();
  const swapper = startSwapper(cwd);
  let swaps: number;
  try {
    for (let p = 0; p < PROMPTS; p++) {
      fake.enqueue(...turnCalls(), textReply("done"));
      const end = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "write and read through d" }] });
      assert.equal(end.stopReason, "end_turn");
    }
  } finally {
    swaps = await swapper.stop();
  }

  const results = toolResultsSent(fake, first);
  assert.equal(results.length, PROMPTS * (WRITES + READS), "every call answered");
  const written = results.filter((r) => /(Created|Overwrote) d\/settings\.json/.test(r)).length;
  const readInside = results.filter((r) => r.includes("inside-token")).length;
  t.diagnostic(`${swaps} swaps; ${written} of ${PROMPTS * WRITES} writes and ${readInside} of ${PROMPTS * READS} reads went through; editor asked ${editor.seen.writes} writes, ${editor.seen.reads} reads; ${editor.seen.landedInHome} writes landed in pith's home; ${results.filter((r) => r.includes(SECRET)).length} reads leaked the token`);

  assert.equal(editor.seen.landedInHome, 0, "no write replaced pith's settings.json");
  assert.equal(readFileSync(homeSettings, "utf8"), original, "pith's settings.json is as it was");
  assert.deepEqual(readdirSync(home).sort(), homeFiles, "nothing was created in pith's home");
  assert.deepEqual(results.filter((r) => r.includes(SECRET)), [], "the token is in no tool result");
  assert.ok(!JSON.stringify(a.updates).includes(SECRET), "nor in anything the client was shown");
  // a call the swap defeated says why in words (a link looked up as it was replaced gave "EINVAL: ... readlink")
  assert.deepEqual(results.filter((r) => /\bE[A-Z]+: /.test(r)), [], "no bare error code");

  // the race over, a plain read and write in the cwd work, and the write is on disk
  const next = fake.requests.length;
  fake.enqueue(toolUseReply("write", { path: "d/new.txt", content: "made by pith\n" }), toolUseReply("read", { path: "d/token" }), textReply("ok"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "once more" }] });
  const quiet = toolResultsSent(fake, next);
  assert.match(quiet[0], /Created d\/new\.txt/);
  assert.equal(readFileSync(join(cwd, "d", "new.txt"), "utf8"), "made by pith\n", "the write is on disk, where the editor sees it");
  assert.match(quiet[1], /1\\tinside-token/);
  assert.deepEqual(a.violations, []);
  await a.end();
});
