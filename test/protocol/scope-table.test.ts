// PROTOCOL.md's scope table is generated from the method table (scripts/scope-table.ts): the
// document on disk holds exactly the generated table, every method appears in the row of its
// scope, and `npm run schema -- --check` fails on a stale table.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { METHOD_NAMES, METHOD_SCOPES, methods } from "../../protocol/index.js";
import { BEGIN, END, renderScopeTable, withScopeTable } from "../../scripts/scope-table.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const DOC = join(repoRoot, "protocol", "PROTOCOL.md");

test("PROTOCOL.md holds the scope table generated from protocol/methods.ts", () => {
  const doc = readFileSync(DOC, "utf8");
  assert.equal(withScopeTable(doc), doc, "stale: run `npm run schema`");
  assert.ok(doc.includes(`${BEGIN}\n${renderScopeTable()}\n${END}`));
});

test("each method is listed once, in the row of its scope", () => {
  const rows = renderScopeTable().split("\n").slice(2);
  assert.equal(rows.length, Object.keys(METHOD_SCOPES).length);
  const seen: string[] = [];
  for (const row of rows) {
    const [, scope, description, names] = row.split("|").map((c) => c.trim());
    assert.equal(description, METHOD_SCOPES[scope as keyof typeof METHOD_SCOPES]);
    for (const name of names.split(", ").map((n) => n.replaceAll("`", ""))) {
      assert.equal(methods[name as keyof typeof methods].scope, scope, name);
      seen.push(name);
    }
  }
  assert.deepEqual(seen.sort(), [...METHOD_NAMES].sort());
});

test("--check fails on a stale scope table, and the generator rewrites it", (t) => {
  const dir = tempDir(t);
  const doc = join(dir, "PROTOCOL.md");
  const fresh = readFileSync(DOC, "utf8");
  writeFileSync(doc, fresh.replace("| `prompt`, ", "| "));
  const gen = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/gen-schema.ts", ...args, "--out", join(dir, "schema.json"), "--doc", doc], { cwd: repoRoot, encoding: "utf8" });
  const stale = gen(["--check"]);
  assert.equal(stale.status, 1);
  assert.match(stale.stderr, /scope table is stale/);
  assert.equal(gen([]).status, 0);
  assert.equal(readFileSync(doc, "utf8"), fresh);
});
