// A real PostgreSQL server for tests, in a temp dir of its own, for code that stores sessions in
// PostgreSQL: a fake would not show what matters there (transactions, locks, what survives a
// crash). The binaries come from the system (Debian's `postgresql` package, which .ci/run
// installs: /usr/lib/postgresql/<version>/bin, the newest one; or PITH_PG_BIN; or initdb/postgres
// on PATH). Nothing is installed, configured or started outside the temp dir.
//
//   test("...", { skip: postgresSkip }, async (t) => {
//     const pg = await startPostgres(t);                 // ready, with an empty database
//     const client = new Client(pg.config);              // or new Client({ connectionString: pg.url })
//     ...
//     await pg.kill9();                                  // a crash: SIGKILL to the postmaster and its children
//     await pg.restart();                                // crash recovery replays the WAL
//   });
//
// How: on import, the binaries are looked up and one template cluster is made with `initdb
// --no-sync -A trust -U pith` (trust auth, C locale, UTF8) and started and stopped once, so
// `postgresSkip` can say why PostgreSQL cannot run here (the package is missing, no `postgres`
// user to run it as, or the server did not start: with its log) instead of failing every test.
// Each startPostgres copies that template (`cp -a`, ~0.1 s instead of ~0.8 s for initdb) and
// spawns `postgres` itself, so its pid is the postmaster's and kill -9 hits the real server. It
// listens on a unix socket in its temp dir only (listen_addresses=''), never on TCP, so servers of
// parallel test files cannot collide. fsync and synchronous_commit are on: a committed
// transaction must survive kill9(). Initdb refuses to run as root, so under root every
// PostgreSQL process is spawned with the uid and gid of the system user `postgres` (node's spawn
// uid/gid, which keeps the pid the postmaster's where runuser would put itself in between) and the
// temp dir is chowned to it. The after hook stops the server (SIGKILL if a fast shutdown takes
// more than 10 s) and removes the dir; a server still running when the test process exits is
// killed then. Linux only: the server's child processes are found in /proc.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";

type Hooks = { after(fn: () => unknown): void };

export interface PostgresOptions {
  /** the database created for the test (default "pith") */
  database?: string;
  /** extra server settings, passed as `-c name=value` on every (re)start */
  settings?: Record<string, string>;
  /** how long a start (or restart, with crash recovery) may take before it fails (default 20 s) */
  startTimeoutMs?: number;
}

export interface Postgres {
  /** libpq-style URL over the unix socket: postgresql://pith@/<database>?host=<socket dir>&port=<port> */
  url: string;
  /** the same as a pg ClientConfig: host, port, user, database */
  config: { host: string; port: number; user: string; database: string };
  /** the unix socket's directory (what pg and libpq take as `host`) */
  host: string;
  port: number;
  user: string;
  database: string;
  /** the cluster's data directory (PGDATA) */
  dataDir: string;
  /** the postmaster's pid, or undefined while the server is not running */
  readonly pid: number | undefined;
  /** the postmaster and its child processes now (empty while not running) */
  pids(): number[];
  /** everything the server wrote to stderr (its log), across restarts */
  log(): string;
  /** fast shutdown (SIGINT), waits until the postmaster and all its children are gone */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster, then to its children: no shutdown checkpoint, no flush; waits until all are gone */
  kill9(): Promise<void>;
  /** starts the server again on the same data dir (after stop or kill9) and waits until it accepts connections */
  restart(): Promise<void>;
}

const USER = "pith";
const PORT = 5432; // on a socket in a private dir, so the usual port never clashes

interface Runtime {
  bin: string;
  /** uid/gid to run PostgreSQL as (the `postgres` user under root), or undefined to run as ourselves */
  ids?: { uid: number; gid: number };
  template: string;
}

let runtime: Runtime | undefined;

function findBin(): string {
  const fromEnv = process.env.PITH_PG_BIN;
  if (fromEnv) return fromEnv;
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length > 0) return join(debian, versions[0], "bin");
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"))) return dir;
  }
  return "";
}

/** the environment for PostgreSQL's processes: ours without PG* variables, C locale */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("PG")) env[k] = v;
  env.LC_ALL = "C";
  env.LANG = "C";
  return env;
}

/** A temp dir the server's user owns, short enough for a unix socket path (at most ~107 bytes). */
function makeRoot(ids: Runtime["ids"]): string {
  let base = tmpdir();
  if (join(base, "pith-pg-XXXXXX", `.s.PGSQL.${PORT}`).length > 100) base = "/tmp";
  const dir = mkdtempSync(join(base, "pith-pg-"));
  if (ids) chownSync(dir, ids.uid, ids.gid);
  chmodSync(dir, 0o700);
  return dir;
}

async function probe(): Promise<string | false> {
  if (process.platform !== "linux") return `the PostgreSQL test harness needs Linux (/proc); this is ${process.platform}`;
  const bin = findBin();
  if (!bin || !existsSync(join(bin, "initdb")) || !existsSync(join(bin, "postgres"))) {
    if (process.env.PITH_PG_BIN) return `PITH_PG_BIN=${process.env.PITH_PG_BIN} has no initdb and postgres`;
    return `PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, no initdb and postgres on PATH): apt-get install -y postgresql`;
  }
  let ids: Runtime["ids"];
  if (process.getuid?.() === 0) {
    const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (uid.status !== 0 || gid.status !== 0) {
      return `running as root and there is no system user "postgres" to run PostgreSQL as (initdb refuses root); the Debian package postgresql creates it`;
    }
    ids = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  const root = makeRoot(ids);
  process.on("exit", () => rmSync(root, { recursive: true, force: true }));
  const template = join(root, "template");
  const init = spawnSync(join(bin, "initdb"), ["--no-sync", "-A", "trust", "-U", USER, "-E", "UTF8", "--locale=C", "-D", template], {
    cwd: root,
    env: serverEnv(),
    encoding: "utf8",
    ...ids,
  });
  if (init.status !== 0) {
    return `initdb (${bin}) failed${init.error ? `: ${init.error.message}` : ` with status ${init.status}`}\n${init.stdout}${init.stderr}`;
  }
  runtime = { bin, ids, template };
  // Started once here, so a server that cannot start here is a skip, with its log.
  const server = new Server(template, root, {});
  try {
    await server.start(20_000, "postgres");
    await server.stop();
  } catch (err) {
    await server.kill9().catch(() => {});
    runtime = undefined;
    return `PostgreSQL (${bin}) could not start here: ${(err as Error).message}`;
  }
  return false;
}

/** pids of the live (not zombie) processes whose parent is `ppid` */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat && stat.ppid === ppid && stat.state !== "Z") out.push(Number(name));
  }
  return out;
}

function readStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" "); // the name may hold spaces and parens
    return { state: rest[0], ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

/** alive and not a zombie (an orphan that PID 1 has not reaped yet is dead for us) */
function alive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const running = new Set<Server>();
process.on("exit", () => {
  for (const s of running) s.killNow();
});

class Server {
  proc: ChildProcess | undefined;
  exited: Promise<void> = Promise.resolve();
  stderr = "";
  private lastChildren: number[] = [];

  constructor(
    readonly dataDir: string,
    readonly socketDir: string,
    readonly settings: Record<string, string>,
  ) {}

  get pid(): number | undefined {
    return this.proc && this.proc.exitCode === null && this.proc.signalCode === null ? this.proc.pid : undefined;
  }

  pids(): number[] {
    const pid = this.pid;
    if (pid === undefined) return [];
    this.lastChildren = childrenOf(pid);
    return [pid, ...this.lastChildren];
  }

  async start(timeoutMs: number, database: string): Promise<void> {
    if (this.pid !== undefined) throw new Error("the server is already running");
    const rt = runtime!;
    const settings: Record<string, string> = {
      listen_addresses: "",
      unix_socket_directories: this.socketDir,
      port: String(PORT),
      fsync: "on",
      synchronous_commit: "on",
      full_page_writes: "on",
      max_connections: "20",
      shared_buffers: "16MB",
      logging_collector: "off",
      ...this.settings,
    };
    const args = ["-D", this.dataDir, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
    const from = this.stderr.length;
    const proc = spawn(join(rt.bin, "postgres"), args, { cwd: this.socketDir, env: serverEnv(), stdio: ["ignore", "ignore", "pipe"], ...rt.ids });
    this.proc = proc;
    running.add(this);
    proc.stderr!.on("data", (c: Buffer) => (this.stderr += c.toString()));
    this.lastChildren = [];
    let exited = false;
    this.exited = new Promise((resolve) =>
      proc.once("exit", () => {
        exited = true;
        running.delete(this);
        resolve();
      }),
    );
    proc.once("error", (err) => (this.stderr += `spawn error: ${err.message}\n`));
    const deadline = Date.now() + timeoutMs;
    let lastError = "";
    for (;;) {
      if (exited || proc.exitCode !== null || proc.signalCode !== null) {
        await this.exited;
        throw new Error(`postgres exited (${proc.exitCode ?? proc.signalCode}) before accepting connections; its log:\n${this.stderr.slice(from)}`);
      }
      const client = new pg.Client({ host: this.socketDir, port: PORT, user: USER, database, connectionTimeoutMillis: 2000 });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("SELECT 1");
        await client.end();
        return;
      } catch (err) {
        lastError = (err as Error).message;
        await client.end().catch(() => {});
      }
      if (Date.now() > deadline) {
        await this.kill9();
        throw new Error(`postgres did not accept connections within ${timeoutMs} ms (last error: ${lastError}); its log:\n${this.stderr.slice(from)}`);
      }
      await sleep(20);
    }
  }

  /** waits until the postmaster has exited and every child seen is gone */
  private async gone(children: number[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const postmasterGone = await Promise.race([this.exited.then(() => true), timeout]);
    clearTimeout(timer);
    if (!postmasterGone) return false;
    while (children.some(alive)) {
      if (Date.now() > deadline) return false;
      await sleep(10);
    }
    return true;
  }

  async stop(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    const children = [...new Set([...this.lastChildren, ...childrenOf(pid)])];
    process.kill(pid, "SIGINT"); // fast shutdown: ends sessions, writes a shutdown checkpoint
    if (!(await this.gone(children, 10_000))) {
      await this.kill9();
      throw new Error(`postgres did not stop within 10 s of SIGINT (killed with SIGKILL); its log:\n${this.stderr.slice(-4000)}`);
    }
  }

  async kill9(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    // Stopped first, so it forks no child between the listing and the kill. Its children would
    // notice its death and exit on their own, but one still attached to the shared memory would
    // make the restart refuse ("pre-existing shared memory block is still in use"), and a crash
    // kills them all anyway.
    process.kill(pid, "SIGSTOP");
    const deadline = Date.now() + 5_000;
    for (let st = readStat(pid)?.state; st !== undefined && st !== "T" && st !== "Z" && Date.now() < deadline; st = readStat(pid)?.state) await sleep(1);
    const children = [...new Set([...this.lastChildren, ...childrenOf(pid)])];
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
    for (const c of children) {
      try {
        process.kill(c, "SIGKILL");
      } catch {}
    }
    if (!(await this.gone(children, 10_000))) throw new Error(`postgres processes survived SIGKILL: ${children.filter(alive).join(" ")}`);
  }

  /** synchronous, for process exit */
  killNow(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    const children = childrenOf(pid);
    for (const p of [pid, ...children]) {
      try {
        process.kill(p, "SIGKILL");
      } catch {}
    }
  }
}

/** Why PostgreSQL cannot run here, or false (for `test(name, { skip: postgresSkip }, fn)`). */
export const postgresSkip: string | false = await probe(); // after the class and `running` it uses

/** Starts a PostgreSQL server in a temp dir, with an empty database; stopped and removed after the test. */
export async function startPostgres(t: Hooks, opts: PostgresOptions = {}): Promise<Postgres> {
  if (postgresSkip || !runtime) throw new Error(`startPostgres: ${postgresSkip || "PostgreSQL is not available"}`);
  const rt = runtime;
  const database = opts.database ?? "pith";
  const timeoutMs = opts.startTimeoutMs ?? 20_000;
  const root = makeRoot(rt.ids);
  const dataDir = join(root, "data");
  const server = new Server(dataDir, root, opts.settings ?? {});
  t.after(async () => {
    try {
      await server.stop();
    } finally {
      server.killNow();
      rmSync(root, { recursive: true, force: true });
    }
  });
  const cp = spawnSync("cp", ["-a", rt.template, dataDir], { encoding: "utf8" });
  if (cp.status !== 0) throw new Error(`could not copy the template cluster: ${cp.error?.message ?? cp.stderr}`);
  await server.start(timeoutMs, "postgres");
  const admin = new pg.Client({ host: root, port: PORT, user: USER, database: "postgres" });
  await admin.connect();
  try {
    if (database !== "postgres") await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const config = { host: root, port: PORT, user: USER, database };
  return {
    url: `postgresql://${USER}@/${encodeURIComponent(database)}?host=${encodeURIComponent(root)}&port=${PORT}`,
    config,
    host: root,
    port: PORT,
    user: USER,
    database,
    dataDir,
    get pid() {
      return server.pid;
    },
    pids: () => server.pids(),
    log: () => server.stderr,
    stop: () => server.stop(),
    kill9: () => server.kill9(),
    restart: () => server.start(timeoutMs, database),
  };
}
