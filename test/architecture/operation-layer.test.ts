// Every front reaches a session only through the host's operation layer
// (src/host/operations/perform.ts), so a new front cannot skip a method's scope or its
// durability: no `admit` call anywhere else (the session's slot is admitted there alone), and in
// the fronts (src/rpc, src/acp, src/cli) every call that changes a session or the set of
// sessions sits inside a `perform(...)` call. The JSON-RPC handler table is the one exception by
// construction: its handlers run only as the operation the server performs (checked below too).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/tmp.js";

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...tsFiles(rel));
    else if (entry.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

const LAYER = "src/host/operations/";
const FRONTS = ["src/rpc", "src/acp", "src/cli", "src/eval"];
/** performed by the server as each method's operation (RpcServer.register) */
const HANDLER_TABLE = "src/rpc/method-handlers.ts";

/** A call that changes a live session or the host's set of sessions. */
const CHANGES =
  /\bhost\.(create|open|fork|close|delete)\(|\.(prompt|compact|navigateTree|bash|setModel|setThinkingLevel|setAutoCompaction|setCompactionThreshold|setName|setLabel|setPermissionMode)\(/;

/** Lines of `source` that call `admit(` on something. */
function admitCalls(source: string): string[] {
  return source.split("\n").filter((line) => /\.admit\(/.test(line) && !line.trim().startsWith("//"));
}

/** Lines of a front that change a session outside a perform call (one statement per line, as the code is written). */
function unperformed(source: string): string[] {
  return source.split("\n").filter((line) => CHANGES.test(line) && !line.trim().startsWith("//") && !line.trim().startsWith("*") && !/\bperform\(/.test(line));
}

test("no admit call outside the operation layer", () => {
  const found: string[] = [];
  for (const file of tsFiles("src")) {
    if (file.startsWith(LAYER)) continue;
    for (const line of admitCalls(readFileSync(join(repoRoot, file), "utf8"))) found.push(`${file}: ${line.trim()}`);
  }
  assert.deepEqual(found, []);
  assert.ok(admitCalls(readFileSync(join(repoRoot, LAYER, "perform.ts"), "utf8")).length > 0, "the layer itself admits (the scan sees admit calls)");
});

test("the fronts change sessions only inside perform(...)", () => {
  const found: string[] = [];
  for (const front of FRONTS) {
    for (const file of tsFiles(front)) {
      if (file === HANDLER_TABLE) continue;
      for (const line of unperformed(readFileSync(join(repoRoot, file), "utf8"))) found.push(`${file}: ${line.trim()}`);
    }
  }
  assert.deepEqual(found, []);
});

test("the JSON-RPC server runs each handler only as the operation it performs", () => {
  const server = readFileSync(join(repoRoot, "src/rpc/server.ts"), "utf8");
  const calls = server.split("\n").filter((line) => /\bhandler\(/.test(line));
  assert.ok(calls.length > 0, "the server calls its handlers");
  for (const line of calls) assert.match(line, /this\.host\.perform\(method, checked\.params, \(held\) => handler\(/, line.trim());
  assert.ok(!/methodHandlers\(/.test(readFileSync(join(repoRoot, "src/acp/acp-agent.ts"), "utf8")), "ACP does not reuse JSON-RPC's handlers");
});

test("the scans find what they must (a scan that finds nothing proves nothing)", () => {
  assert.deepEqual(admitCalls("  s.live.admit(\"setModel\", p, fn);\n  // s.admit( in a comment\n"), ['  s.live.admit("setModel", p, fn);']);
  assert.equal(unperformed("    s.live.setAutoCompaction(value.autoCompaction);").length, 1);
  assert.equal(unperformed("  await cx.host.create({ cwd });").length, 1);
  assert.equal(unperformed('  await cx.host.perform("createSession", { cwd }, () => cx.host.create({ cwd }));').length, 0);
});
