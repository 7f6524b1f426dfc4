// The daemon as an unprivileged user runs it, from a test that may be root (CI is). Root reads
// everything, joins cgroups and needs no user namespace for bubblewrap, so a sandbox that only
// works for root would pass every other test; users run pith as themselves.
//
//   const u = unprivilegedUser();       // root: a system user made for the tests; else this user
//   const { bin, nodeDir } = installFor(t, u);  // bin/pith (and node) that user can run
//   const dir = ownedDir(t, u, "x");    // a directory that user owns
//   startRpcDaemon(t, { ..., bin, user: u.spawnAs, env: { PATH: `${nodeDir}:${PATH}` } });
//   bwrapProblem(u)                     // why bubblewrap cannot run as that user, if it cannot
//
// CI clones into a directory only root can enter, so the checkout's bin/pith, dist/ and
// node_modules may be out of that user's reach: then a copy of what the daemon loads (bin/,
// dist/, package.json and the production dependencies, about 55 MB) is made in /var/tmp
// (PITH_TEST_COPY_INSTALL=1 makes it anyway, to try that path where the checkout is readable).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BIN } from "./user-run.js";
import { repoRoot } from "./tmp.js";

type Hooks = { after(fn: () => unknown): void };

/** The system user the tests make (as root) to run the daemon as. */
const TEST_USER = "pith-test";

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  /** spawn options' uid/gid (undefined when the test already runs as this user) */
  spawnAs?: { uid: number; gid: number };
}

function lookup(name: string): { uid: number; gid: number } | undefined {
  const r = spawnSync("getent", ["passwd", name], { encoding: "utf8" });
  const f = r.status === 0 ? r.stdout.trim().split(":") : [];
  return f.length >= 4 ? { uid: Number(f[2]), gid: Number(f[3]) } : undefined;
}

/**
 * As root: the user `pith-test` (made here with useradd where it is missing: no home, no login
 * shell), or nobody where useradd is missing. Otherwise the user the tests run as.
 */
export function unprivilegedUser(): TestUser {
  const uid = process.getuid!();
  if (uid !== 0) return { name: process.env.USER ?? String(uid), uid, gid: process.getgid!() };
  let found = lookup(TEST_USER);
  if (!found) {
    // another test process may make it at the same moment: look again whatever useradd said
    spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", TEST_USER], { stdio: "ignore" });
    found = lookup(TEST_USER);
  }
  const name = found ? TEST_USER : "nobody";
  const ids = found ?? lookup("nobody") ?? { uid: 65534, gid: 65534 };
  return { name, ...ids, spawnAs: ids };
}

/** A directory that `user` owns (mode 0700), in a parent everyone may pass through (made in `under`). */
export function ownedDir(t: Hooks, user: TestUser, prefix: string, under = tmpdir()): string {
  const base = mkdtempSync(join(under, `pith-${prefix}-`));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  chmodSync(base, 0o755);
  const dir = join(base, prefix);
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Whether `user` can load the daemon's code from bin/pith's checkout with `node` (every static import). */
function canLoad(user: TestUser, node: string, bin: string): boolean {
  const main = pathToFileURL(join(dirname(bin), "..", "dist", "src", "cli", "main.js")).href;
  const r = spawnSync(node, ["--input-type=module", "-e", `await import(${JSON.stringify(main)});`], {
    stdio: "ignore",
    timeout: 20_000,
    ...(user.spawnAs ?? {}),
  });
  return r.status === 0 && spawnSync("test", ["-x", bin], { ...(user.spawnAs ?? {}) }).status === 0;
}

export interface Install {
  /** bin/pith */
  bin: string;
  /** a directory with a `node` the user can run: put it first on the daemon's PATH (bin/pith runs `env node`) */
  nodeDir: string;
  /** what had to be copied for the user */
  copied: string[];
}

/**
 * bin/pith as `user` can run it: the checkout's own, or a copy of what it needs, and node (which
 * may live in a private place too: nvm under /root). The copies go under /var/tmp, not the
 * temp dir, since sandboxed commands run node too and the sandbox has a /tmp of its own.
 * PITH_TEST_COPY_INSTALL=1 copies pith anyway: CI's case, on a machine whose checkout is readable.
 */
export function installFor(t: Hooks, user: TestUser): Install {
  let dir: string | undefined;
  const workDir = () => {
    if (dir) return dir;
    dir = mkdtempSync(join("/var/tmp", "pith-install-"));
    const made = dir;
    t.after(() => rmSync(made, { recursive: true, force: true }));
    chmodSync(dir, 0o755);
    return dir;
  };
  const copied: string[] = [];
  let node = process.execPath;
  if (spawnSync(node, ["--version"], { stdio: "ignore", ...(user.spawnAs ?? {}) }).status !== 0) {
    mkdirSync(join(workDir(), "node-bin"));
    node = join(workDir(), "node-bin", "node");
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    copied.push("node");
  }
  const nodeDir = dirname(node);
  if (process.env.PITH_TEST_COPY_INSTALL !== "1" && canLoad(user, node, BIN)) return { bin: BIN, nodeDir, copied };
  const bin = copyInstall(workDir());
  copied.push("pith");
  if (!canLoad(user, node, bin)) throw new Error(`${user.name} cannot run pith even from a copy in ${dirname(dirname(bin))}`);
  return { bin, nodeDir, copied };
}

/** Copies bin/, dist/, package.json and the production dependencies into `dir`, readable by everyone; returns its bin/pith. */
function copyInstall(dir: string): string {
  for (const part of ["bin", "dist", "package.json"]) cpSync(join(repoRoot, part), join(dir, part), { recursive: true, dereference: true });
  for (const pkg of productionPackages()) cpSync(join(repoRoot, "node_modules", pkg), join(dir, "node_modules", pkg), { recursive: true, dereference: true });
  // a checkout made with umask 077 has private files, and copies keep their modes
  execFileSync("chmod", ["-R", "a+rX", dir]);
  return join(dir, "bin", "pith");
}

/**
 * The packages in the checkout's top node_modules that the daemon may load: the production
 * dependencies, and theirs, found as Node resolves them (a package's own node_modules first; a
 * nested one is copied with its parent).
 */
function productionPackages(): string[] {
  const top = realpathSync(join(repoRoot, "node_modules"));
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (pkgDir: string) => {
    if (seen.has(pkgDir)) return;
    seen.add(pkgDir);
    const meta = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const name of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies })) {
      const modules = modulesDirOf(pkgDir, name);
      if (!modules) continue; // a missing optional dependency
      if (modules === top) found.add(name);
      visit(realpathSync(join(modules, name)));
    }
  };
  visit(realpathSync(repoRoot));
  return [...found];
}

/** The node_modules directory (real path) Node finds package `name` in, from `dir` upwards. */
function modulesDirOf(dir: string, name: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules", name, "package.json"))) return realpathSync(join(d, "node_modules"));
    if (d === dirname(d)) return undefined;
  }
}

/** Why bubblewrap cannot make a sandbox as `user` (unprivileged user namespaces refused), or undefined. */
export function bwrapProblem(user: TestUser): string | undefined {
  const r = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "--", "/bin/true"], {
    encoding: "utf8",
    timeout: 10_000,
    cwd: "/",
    ...(user.spawnAs ?? {}),
  });
  if (r.error) return r.error.message;
  return r.status === 0 ? undefined : `exit ${r.status}: ${r.stderr.trim().slice(0, 300)}`;
}
