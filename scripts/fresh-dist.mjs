// Keeps what the end-to-end tests run in step with the sources: dist/ (the compiled daemon that
// bin/pith runs) and clients/web/dist (the bundle `pith serve` serves). Plain JavaScript so that
// scripts/run-tests.mjs can use it before any TypeScript loader exists; the tests import it too
// (types in fresh-dist.d.mts).
//
// ensureFresh() takes a lock, looks at mtimes, builds what is stale and releases the lock. The
// check itself runs under the lock, so a process never reads dist/ while another one is writing
// it: parallel test files (node --test a.test.ts b.test.ts) build once, one after the other finds
// it fresh. `npm test` (scripts/run-tests.mjs) builds before it starts the test runner and tells
// the files so (PITH_TESTS_BUILT=1); they then only check, and a file that finds dist/ stale
// fails with the list of changed files (a source edited during the run) instead of rebuilding
// under daemons that other files are running.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

const LOCK_WAIT_MS = 5 * 60_000;

function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** src/ and protocol/ files newer than their compiled dist/ file (or without one). */
export function staleDist(root = repoRoot) {
  const out = [];
  for (const dir of ["src", "protocol"]) {
    for (const f of tsFiles(join(root, dir))) {
      const built = mtime(join(root, "dist", dir, f.replace(/\.ts$/, ".js")));
      if (built < mtime(join(root, dir, f))) out.push(`${dir}/${f}`);
    }
  }
  return out;
}

/** Sources of the web bundle newer than clients/web/dist/app.js (everything, when it is missing). */
export function staleWebBundle(root = repoRoot) {
  const built = Math.min(...["app.js", "app.css", "index.html"].map((f) => mtime(join(root, "clients", "web", "dist", f))));
  const sources = [
    ...["clients/web/src", "clients/ts", "protocol"].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => /\.(ts|css)$/.test(f) && !f.endsWith(".d.ts"))
        .map((f) => `${dir}/${f}`),
    ),
    "clients/web/index.html",
    "scripts/build-web.mjs",
  ];
  return sources.filter((f) => mtime(join(root, f)) > built);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms) {
  Atomics.wait(sleeper, 0, 0, ms);
}

function ownerGone(lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, "owner"), "utf8"));
  } catch {
    // made but not yet written to, or half removed: gone only if that has lasted
    return Date.now() - mtime(lock) > 30_000;
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === "ESRCH";
  }
}

/** Runs fn holding dist/.build-lock (a directory: mkdir is atomic). A lock left by a dead process is taken over. */
export function withBuildLock(fn, root = repoRoot) {
  mkdirSync(join(root, "dist"), { recursive: true });
  const lock = join(root, "dist", ".build-lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    if (ownerGone(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`waited ${LOCK_WAIT_MS / 1000} s for ${lock}; remove it if no build is running`);
    if (!said) process.stderr.write(`[tests] waiting for another process's build (${lock})\n`);
    said = true;
    sleepSync(50);
  }
  try {
    writeFileSync(join(lock, "owner"), String(process.pid));
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function run(what, args, root) {
  process.stderr.write(`[tests] ${what}\n`);
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
}

function summary(files) {
  return `${files.slice(0, 5).join(", ")}${files.length > 5 ? ` (+${files.length - 5})` : ""}`;
}

/**
 * Makes dist/ (and with web: true, clients/web/dist) fresh, building what is stale, under the
 * lock. With build: false, throws when something is stale instead. Returns what was built and why.
 */
export function ensureFresh({ web = false, build = true, root = repoRoot } = {}) {
  return withBuildLock(() => {
    const result = { dist: staleDist(root), web: web ? staleWebBundle(root) : [] };
    const stale = [...result.dist.map((f) => `dist/ (${f})`), ...(result.web.length > 0 ? [`clients/web/dist (${summary(result.web)})`] : [])];
    if (stale.length === 0) return result;
    if (!build) {
      throw new Error(
        `stale build under test: ${summary(result.dist)}${result.web.length > 0 ? `; web bundle: ${summary(result.web)}` : ""} changed after npm test built it (edited during the run?). Run the tests again.`,
      );
    }
    if (result.dist.length > 0) {
      const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
      run(`dist/ is older than ${summary(result.dist)}: building it (tsc -p tsconfig.build.json)`, [tsc, "-p", "tsconfig.build.json"], root);
    }
    if (result.web.length > 0) run(`clients/web/dist is older than ${summary(result.web)}: building it (scripts/build-web.mjs)`, [join(root, "scripts", "build-web.mjs")], root);
    return result;
  }, root);
}
