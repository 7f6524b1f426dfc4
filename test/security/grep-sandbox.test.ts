// ripgrep walks the directories below its root by path, on its own, where the daemon's descriptor
// checks cannot follow it: a link swapped in a subdirectory mid-walk could show it pith's home.
// In a sandboxed session it runs inside the sandbox, where pith's home is an empty folder. A
// stand-in `rg` first on PATH reports what it sees of pith's home, then runs the real ripgrep:
// inside the sandbox it sees nothing there; outside (no sandbox) it sees the token, so the test
// can fail. The searches themselves still work: a directory, one file (passed as its checked
// descriptor), and a directory under the host's /tmp (the session's spill dir).
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, test, type TestContext } from "node:test";
import { runGrep } from "../../src/tools/grep.js";
import { findOnPath } from "../../src/tools/find-on-path.js";
import { DEFAULT_LIMITS, sandboxAvailable, type SandboxPolicy } from "../../src/tools/sandbox.js";
import type { ToolContext } from "../../src/tools/types.js";
import { textOf } from "../tools/helpers.js";
import { tempDir } from "../support/tmp.js";

const realRg = findOnPath("rg");
const probe = sandboxAvailable();
const skip = !realRg
  ? "ripgrep is not installed (Debian package ripgrep; CI installs it)"
  : !probe.ok
    ? `${probe.reason}; skipping (CI installs the Debian package bubblewrap)`
    : false;

const POLICY: SandboxPolicy = { mode: "workspace-write", network: "off", writableRoots: [], limits: DEFAULT_LIMITS };

/**
 * A stand-in rg: one match line counting the entries of $PROBE_HOME (pith's home), then the real
 * ripgrep. Outside /tmp, which the sandbox replaces; first on PATH before the first search (grep
 * looks rg up once per process).
 */
const bin = mkdtempSync("/var/tmp/pith-rg-bin-");
after(() => rmSync(bin, { recursive: true, force: true }));
const report = `{"type":"match","data":{"path":{"text":"probe"},"lines":{"text":"home-entries=%s"},"line_number":1}}\\n`;
writeFileSync(join(bin, "rg"), `#!/bin/sh\nprintf '${report}' "$(ls -A "$PROBE_HOME" | wc -l)"\nexec '${realRg}' "$@"\n`);
chmodSync(join(bin, "rg"), 0o755);
process.env.PATH = `${bin}:${process.env.PATH}`;

function setup(t: TestContext, sandbox: SandboxPolicy | undefined): { ctx: ToolContext; cwd: string; spill: string } {
  const home = realpathSync(tempDir(t, "pith-rg-home-"));
  writeFileSync(join(home, "token"), "secret-token-value");
  const cwd = realpathSync(tempDir(t, "pith-rg-cwd-"));
  mkdirSync(join(cwd, "src"));
  writeFileSync(join(cwd, "src", "a.txt"), "needle in the cwd\n");
  // the spill dir lives under the host's /tmp, which the sandbox replaces with a private one
  const spill = realpathSync(tempDir(t, "pith-rg-spill-"));
  writeFileSync(join(spill, "out.log"), "needle in the spill file\n");
  const env = { PATH: process.env.PATH, PROBE_HOME: home };
  const ctx: ToolContext = { cwd, signal: new AbortController().signal, deniedPaths: [home], readOnlyPaths: [join(cwd, ".pith")], env, tempDir: spill, ...(sandbox ? { sandbox } : {}) };
  return { ctx, cwd, spill };
}

test("sandboxed ripgrep sees pith's home as an empty folder, and still searches a directory, a file and the spill dir", { skip }, async (t) => {
  const { ctx, spill } = setup(t, POLICY);
  const dir = textOf(await runGrep({ pattern: "needle" }, ctx, { engine: "ripgrep" }));
  assert.match(dir, /home-entries=0/, `pith's home is hidden from ripgrep:\n${dir}`);
  assert.match(dir, /src\/a\.txt:1: needle in the cwd/);
  const file = textOf(await runGrep({ pattern: "needle", path: "src/a.txt" }, ctx, { engine: "ripgrep" }));
  assert.match(file, /needle in the cwd/, `one file, through its descriptor:\n${file}`);
  const inSpill = textOf(await runGrep({ pattern: "needle", path: spill }, ctx, { engine: "ripgrep" }));
  assert.match(inSpill, /out\.log:1: needle in the spill file/, `the spill dir under the host's /tmp:\n${inSpill}`);
});

test("without the sandbox the same stand-in sees pith's home (what the sandbox takes away)", { skip }, async (t) => {
  const { ctx } = setup(t, undefined);
  const dir = textOf(await runGrep({ pattern: "needle" }, ctx, { engine: "ripgrep" }));
  assert.match(dir, /home-entries=1/, dir);
});

test("a .pith that is a link to pith's home (from the repository or the model) does not show the home to sandboxed ripgrep", { skip }, async (t) => {
  const { ctx, cwd } = setup(t, POLICY);
  const home = ctx.deniedPaths![0];
  // relative, as bwrap would have followed it from the host's tree (an absolute one leads nowhere there)
  symlinkSync(relative(cwd, home), join(cwd, ".pith"));
  const dir = textOf(await runGrep({ pattern: "needle" }, ctx, { engine: "ripgrep" }));
  assert.match(dir, /home-entries=0/, `pith's home is hidden from ripgrep:\n${dir}`);
  assert.match(dir, /src\/a\.txt:1: needle in the cwd/);
});
