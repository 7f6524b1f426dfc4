import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { generateToken, readTokenFile, tokensEqual, validToken, writeTokenFile } from "../../src/rpc/auth.js";
import { tempDir } from "../support/tmp.js";

test("generateToken: 32 random bytes in base64url", () => {
  const a = generateToken();
  const b = generateToken();
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(a, "base64url").length, 32);
  assert.notEqual(a, b);
  assert.ok(validToken(a));
});

test("validToken: non-empty, [A-Za-z0-9_-] only", () => {
  for (const ok of ["a", "abc_-XYZ019", generateToken()]) assert.equal(validToken(ok), true, ok);
  for (const bad of ["", " ", "a b", "a.b", "a,b", "a+b/", "ä", "tok\n", undefined, 42, null]) {
    assert.equal(validToken(bad), false, String(bad));
  }
});

test("tokensEqual", () => {
  const t = generateToken();
  assert.equal(tokensEqual(t, t), true);
  assert.equal(tokensEqual(t + "x", t), false);
  assert.equal(tokensEqual("", t), false);
  assert.equal(tokensEqual(t.slice(0, -1) + (t.endsWith("A") ? "B" : "A"), t), false);
});

test("writeTokenFile: creates the directory, writes 0600, returns the path", (t) => {
  const home = join(tempDir(t), "nested", "pith");
  const token = generateToken();
  const path = writeTokenFile(home, token);
  assert.equal(path, join(home, "token"));
  assert.equal(readFileSync(path, "utf8"), token);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(readTokenFile(home), token);
  assert.deepEqual(readdirSync(home), ["token"], "no temporary file left behind");
});

test("writeTokenFile: an existing file with loose permissions ends up 0600 with the new token", (t) => {
  const home = tempDir(t);
  const path = join(home, "token");
  writeFileSync(path, "old");
  chmodSync(path, 0o644);
  const token = generateToken();
  assert.equal(writeTokenFile(home, token), path);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(readFileSync(path, "utf8"), token);
  assert.throws(() => writeTokenFile(home, "not a token"));
  assert.equal(readTokenFile(join(home, "missing")), undefined);
});
