// bash: output and exit codes, streaming, timeout, abort killing the whole process group, and
// truncation keeping the tail with the full output saved to a file.
import assert from "node:assert/strict";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bashTool, type BashDetails } from "../../src/tools/bash.js";
import type { ToolOutput } from "../../src/tools/types.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, isRunning, rejectsTool, textOf } from "./helpers.js";

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function readPid(file: string): number {
  return Number(readFileSync(file, "utf8").trim());
}

test("bash runs in cwd and returns stdout and stderr combined, in order", async (t) => {
  const dir = tempDir(t);
  const out = await bashTool.execute({ command: "pwd; echo out1; echo err1 >&2; echo out2; printf 'err2' >&2" }, ctxFor(dir));
  assert.equal(textOf(out), `${realpathSync(dir)}\nout1\nerr1\nout2\nerr2`);
  const details = out.details as BashDetails;
  assert.equal(details.exitCode, 0);
  assert.equal(details.truncated, false);
  assert.equal(details.fullOutputPath, undefined);
});

test("bash: a command with no output says so; stdin is closed", async (t) => {
  const dir = tempDir(t);
  assert.equal(textOf(await bashTool.execute({ command: "true" }, ctxFor(dir))), "(no output)");
  // `cat` with no input would hang on an open stdin
  assert.equal(textOf(await bashTool.execute({ command: "cat; echo done" }, ctxFor(dir))), "done");
});

test("bash: a non-zero exit is a ToolError with the output and the exit code", async (t) => {
  const dir = tempDir(t);
  const err = await rejectsTool(bashTool.execute({ command: "echo before; echo bad >&2; exit 3" }, ctxFor(dir)), /before\nbad/, /exit code 3/);
  assert.equal((err.details as BashDetails).exitCode, 3);
  await rejectsTool(bashTool.execute({ command: "no-such-command-xyz" }, ctxFor(dir)), /not found/, /exit code 127/);
  await rejectsTool(bashTool.execute({ command: "if then fi" }, ctxFor(dir)), /syntax error/, /exit code 2/);
});

test("bash: a command killed by a signal is reported", async (t) => {
  const dir = tempDir(t);
  await rejectsTool(bashTool.execute({ command: "kill -KILL $$" }, ctxFor(dir)), /signal SIGKILL/);
});

test("bash streams partial output through onUpdate", async (t) => {
  const dir = tempDir(t);
  const updates: string[] = [];
  let sawFirstBeforeSecond = false;
  const marker = join(dir, "second-started");
  const out = await bashTool.execute(
    { command: `echo first; sleep 0.3; touch ${marker}; echo second` },
    ctxFor(dir, {
      onUpdate: (partial: ToolOutput) => {
        const text = textOf(partial);
        updates.push(text);
        if (text.includes("first") && !existsSync(marker)) sawFirstBeforeSecond = true;
      },
    }),
  );
  assert.equal(textOf(out), "first\nsecond");
  assert.ok(sawFirstBeforeSecond, `no update while running: ${JSON.stringify(updates)}`);
});

test("bash: timeout kills the command and reports it", async (t) => {
  const dir = tempDir(t);
  const pidFile = join(dir, "pid");
  const started = Date.now();
  await rejectsTool(
    bashTool.execute({ command: `echo started; sleep 30 & echo $! > ${pidFile}; wait`, timeout: 0.3 }, ctxFor(dir)),
    /started/,
    /timed out after 0\.3 seconds/,
  );
  assert.ok(Date.now() - started < 3000, "timeout took too long");
  assert.equal(isRunning(readPid(pidFile)), false, "background child survived the timeout");
});

test("bash: abort kills the whole process group, leaving no orphan", async (t) => {
  const dir = tempDir(t);
  const pidFile = join(dir, "pid");
  const ac = new AbortController();
  let seen = "";
  const onUpdate = (p: ToolOutput) => (seen = textOf(p));
  const run = bashTool.execute({ command: `sleep 30 & echo $! > ${pidFile}; echo waiting; wait` }, ctxFor(dir, { signal: ac.signal, onUpdate }));
  // abort once the output so far has been read, so the error can be checked to carry it
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n") && seen.includes("waiting"));
  const pid = readPid(pidFile);
  assert.ok(isRunning(pid), "background sleep should be running before the abort");
  const started = Date.now();
  ac.abort();
  await assert.rejects(run, (err: Error) => {
    assert.match(err.message, /aborted/);
    assert.match(err.message, /waiting/);
    return true;
  });
  assert.ok(Date.now() - started < 3000);
  assert.equal(isRunning(pid), false, `orphaned child ${pid} still running`);
});

test("bash: a process group ignoring SIGTERM is killed with SIGKILL after the grace period", async (t) => {
  const dir = tempDir(t);
  const pidFile = join(dir, "pid");
  const ac = new AbortController();
  const run = bashTool.execute({ command: `trap '' TERM; sleep 30 & echo $! > ${pidFile}; wait` }, ctxFor(dir, { signal: ac.signal }));
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
  const pid = readPid(pidFile);
  ac.abort();
  await assert.rejects(run, /aborted/);
  assert.equal(isRunning(pid), false, `child ${pid} survived SIGKILL`);
});

test("bash: an already aborted signal runs nothing", async (t) => {
  const dir = tempDir(t);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(bashTool.execute({ command: `touch ${join(dir, "ran")}` }, ctxFor(dir, { signal: ac.signal })), /aborted/);
  assert.equal(existsSync(join(dir, "ran")), false);
});

test("bash: background jobs holding the output pipe do not hold up the result", async (t) => {
  const dir = tempDir(t);
  const started = Date.now();
  const out = await bashTool.execute({ command: "sleep 5 & echo $!" }, ctxFor(dir));
  const pid = Number(textOf(out).trim());
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
  assert.ok(Date.now() - started < 2000, "waited for the background job");
});

test("bash: long output keeps the tail by lines; the full output is in a temp file", async (t) => {
  const dir = tempDir(t);
  const tmp = join(tempDir(t), "nested");
  const out = await bashTool.execute({ command: "seq 1 5000" }, ctxFor(dir, { tempDir: tmp }));
  const text = textOf(out);
  const details = out.details as BashDetails;
  assert.equal(details.truncated, true);
  assert.equal(details.totalLines, 5000);
  assert.ok(details.fullOutputPath?.startsWith(tmp), `full output not in ctx.tempDir: ${details.fullOutputPath}`);
  assert.ok(text.includes(details.fullOutputPath!), "the text names the full output file");
  const lines = text.split("\n\n")[0].split("\n");
  assert.equal(lines.length, 2000);
  assert.equal(lines[0], "3001");
  assert.equal(lines[lines.length - 1], "5000");
  const full = readFileSync(details.fullOutputPath!, "utf8");
  assert.equal(full, `${Array.from({ length: 5000 }, (_, i) => i + 1).join("\n")}\n`);
});

test("bash: long output keeps the tail by bytes; the failure still carries the output", async (t) => {
  const dir = tempDir(t);
  const tmp = tempDir(t);
  const command = `awk 'BEGIN { for (i = 1; i <= 3000; i++) printf "%05d %s\\n", i, sprintf("%200s", "x") }'; exit 1`;
  const err = await rejectsTool(bashTool.execute({ command }, ctxFor(dir, { tempDir: tmp })), /exit code 1/, /Output truncated/);
  const details = err.details as BashDetails;
  assert.equal(details.truncated, true);
  const shown = err.message.split("\n\n")[0].split("\n");
  assert.ok(Buffer.byteLength(shown.join("\n")) <= 50 * 1024);
  assert.ok(shown.length > 200 && shown.length < 300, `kept ${shown.length} lines`);
  assert.ok(shown[shown.length - 1].startsWith("03000 "));
  assert.equal(readFileSync(details.fullOutputPath!, "utf8").split("\n").length, 3001);
});

test("bash: a single huge line keeps its end", async (t) => {
  const dir = tempDir(t);
  const out = await bashTool.execute({ command: "head -c 200000 /dev/zero | tr '\\0' 'a'; printf 'END'" }, ctxFor(dir, { tempDir: tempDir(t) }));
  const text = textOf(out);
  const shown = text.split("\n\n")[0];
  assert.ok(shown.endsWith("aaaEND"));
  assert.ok(Buffer.byteLength(shown) <= 50 * 1024);
  assert.match(text, /last 50 KB of the final line/);
});
