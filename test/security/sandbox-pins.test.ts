// PinnedDirs opens the directory the sandbox is about to bind and hands bwrap that descriptor:
// it must name exactly the path that was checked, never a directory reached through a link.
import assert from "node:assert/strict";
import { mkdirSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PinnedDirs } from "../../src/tools/sandbox-pins.js";
import { tempDir } from "../support/tmp.js";

test("a directory is pinned by a descriptor of itself; the options number it from the first descriptor", (t) => {
  const base = tempDir(t);
  const a = join(base, "a");
  const b = join(base, "b");
  mkdirSync(a);
  mkdirSync(b);
  const pins = new PinnedDirs(4);
  t.after(() => pins.close());
  assert.deepEqual(pins.bind(a, true), ["--bind-fd", "4", a]);
  assert.deepEqual(pins.bind(`${b}/`, false), ["--ro-bind-fd", "5", b]);
  assert.equal(pins.fds.length, 2);
  assert.equal(readlinkSync(`/proc/self/fd/${pins.fds[0]}`), a);
  pins.close();
  assert.equal(pins.fds.length, 0);
});

test("a link, as the last component or on the way, a file and a missing path are not pinned", (t) => {
  const base = tempDir(t);
  const real = join(base, "real");
  mkdirSync(join(real, "sub"), { recursive: true });
  symlinkSync(real, join(base, "link"));
  const pins = new PinnedDirs(3);
  t.after(() => pins.close());
  assert.equal(pins.bind(join(base, "link"), true), undefined, "the link itself");
  assert.equal(pins.bind(join(base, "link", "sub"), true), undefined, "a directory reached through a link on the way");
  assert.equal(pins.bind(join(base, "missing"), true), undefined);
  assert.equal(pins.fds.length, 0, "nothing left open");
});

test("past the last descriptor a launcher can hand on, binding more is refused with a reason", (t) => {
  const base = tempDir(t);
  const pins = new PinnedDirs(8, 9);
  t.after(() => pins.close());
  for (const n of ["a", "b", "c"]) mkdirSync(join(base, n));
  assert.ok(pins.bind(join(base, "a"), true));
  assert.ok(pins.bind(join(base, "b"), true));
  assert.throws(() => pins.bind(join(base, "c"), true), /more directories to bind than can be handed to the sandbox here \(2\)/);
});
