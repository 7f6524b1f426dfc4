// The network of a sandboxed command that may use it: its own network namespace (bwrap
// --unshare-net), joined to the outside by slirp4netns, a user-mode TCP/IP stack that runs
// outside the namespace and makes the connections on the command's behalf. Sharing the host's
// network instead would give the command the host's loopback: `pith serve` (with its token a
// `cat` away in a readable file, or not), databases, dev servers, the cloud metadata proxy.
// With --disable-host-loopback, slirp4netns refuses connections to 127.0.0.1 and to its gateway
// (10.0.2.2, which would otherwise lead to the host's loopback). Services the host offers on
// its other addresses stay reachable, as from any machine on the network.
//
// The handshake: bwrap reports the command's pid on its --info-fd and holds the command on its
// --block-fd; slirp4netns joins that pid's namespaces (bwrap's user namespace too where it made
// one, i.e. as a normal user), configures tap0 and writes to --ready-fd; then the command is
// released. slirp4netns ends when its --exit-fd closes: when the command ends, or when the
// daemon dies (the kernel closes the daemon's end), so it never outlives either.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import type { Readable, Writable } from "node:stream";

const SLIRP4NETNS = "slirp4netns";

let probed: boolean | undefined;

/** Whether slirp4netns is installed (found once per process). */
export function isolatedNetworkAvailable(): boolean {
  if (probed === undefined) {
    const r = spawnSync(SLIRP4NETNS, ["--version"], { stdio: "ignore", timeout: 5000 });
    probed = !r.error && r.status === 0;
  }
  return probed;
}

/** How long slirp4netns may take to bring the interface up before the command runs without it. */
const READY_TIMEOUT_MS = 10_000;

export interface SandboxNet {
  /** resolves once the interface is up, or with why it could not be */
  ready: Promise<{ ok: true } | { ok: false; reason: string }>;
  /** ends slirp4netns (idempotent) */
  stop(): void;
}

/**
 * The user namespace slirp4netns must join to configure `pid`'s network: bwrap's own where it
 * made one (as a normal user: the network namespace belongs to it, and joining it without its
 * user namespace is refused), none where it did not (as root: joining one's own fails).
 */
function userNamespaceArgs(pid: number): string[] {
  try {
    const theirs = readlinkSync(`/proc/${pid}/ns/user`);
    return theirs === readlinkSync("/proc/self/ns/user") ? [] : [`--userns-path=/proc/${pid}/ns/user`];
  } catch {
    return [];
  }
}

/**
 * Resolves once bwrap has brought up the namespace's loopback (127.0.0.1 shows in the
 * namespace's routing trie only once lo has its address and is up), or after `ms`. bwrap reports
 * the pid before its child configures lo, and slirp4netns changing links at the same time makes
 * bwrap's netlink request fail ("loopback: Failed RTM_NEWADDR"): seen as a normal user, where
 * the child first waits for its uid map.
 */
async function loopbackUp(pid: number, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if (readFileSync(`/proc/${pid}/net/fib_trie`, "utf8").includes("127.0.0.1")) return;
    } catch {
      return; // gone, or not readable: let slirp4netns try (and say what failed)
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts slirp4netns for the network namespace of `pid` (once bwrap has set up its loopback). */
export function attachNetwork(pid: number): SandboxNet {
  let stopped = false;
  let stopStarted: (() => void) | undefined;
  const ready = loopbackUp(pid).then(() => {
    if (stopped) return { ok: false as const, reason: "the command ended first" };
    const net = startSlirp(pid);
    stopStarted = net.stop;
    return net.ready;
  });
  return {
    ready,
    stop: () => {
      stopped = true;
      stopStarted?.();
    },
  };
}

function startSlirp(pid: number): SandboxNet {
  let child: ChildProcess;
  try {
    // fd 3: ready (written by slirp4netns), fd 4: exit (closed by us, or by our death)
    const args = ["--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd=3", "--exit-fd=4", ...userNamespaceArgs(pid), String(pid), "tap0"];
    child = spawn(SLIRP4NETNS, args, {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
  } catch (err) {
    return { ready: Promise.resolve({ ok: false, reason: (err as Error).message }), stop: () => {} };
  }
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString("utf8");
  });
  const readyPipe = child.stdio[3] as Readable;
  const exitPipe = child.stdio[4] as Writable;
  readyPipe.on("error", () => {});
  exitPipe.on("error", () => {});
  const ready = new Promise<{ ok: true } | { ok: false; reason: string }>((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false, reason: "slirp4netns did not get ready in time" }), READY_TIMEOUT_MS);
    readyPipe.once("data", () => {
      clearTimeout(timer);
      resolve({ ok: true });
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: err.message });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `slirp4netns exited (${code}): ${stderr.trim().split("\n").slice(-2).join(" ")}` });
    });
  });
  return {
    ready,
    stop: () => {
      readyPipe.destroy();
      exitPipe.destroy();
    },
  };
}
