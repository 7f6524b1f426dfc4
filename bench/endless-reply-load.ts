// The endless-reply load of the hostile-loads bench: a hostile endpoint (endless-api-child.ts, a
// process of its own) streams one session's reply for ever, the daemon cuts it at maxReplyMB
// (default 32 MiB), and a subscribed WebSocket client reads every event meanwhile (it discards
// them unparsed, so the bench process does not pay for them). Also the daemon's RSS, sampled
// from /proc/<pid>/status while a load runs.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WebSocket } from "ws";
import { PROTOCOL_VERSION } from "../protocol/version.js";
import type { RpcPeer, ServeDaemon } from "../test/support/daemon-client.js";

const ROOT = join(import.meta.dirname, "..");

/** The provider the endless endpoint is configured as (settings' providers). */
export const HOSTILE_PROVIDER = "hostile";

export interface EndlessApi {
  url: string;
  /** the next request's end: how it ended and the bytes of text it streamed */
  nextEnd(): Promise<{ how: string; streamed: number }>;
  stop(): Promise<void>;
}

/** The endless endpoint in its own process; `safetyMB` ends a reply nobody cuts. */
export async function startEndlessApi(safetyMB = 512): Promise<EndlessApi> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "endless-api-child.ts"), String(safetyMB)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffered = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiters.push(resolve)));
  const url = await nextLine();
  return {
    url,
    nextEnd: async () => JSON.parse(await nextLine()) as { how: string; streamed: number },
    stop: () => new Promise((r) => (child.once("exit", r), child.kill("SIGTERM"))),
  };
}

/** The daemon's resident memory now, in MiB (VmRSS). */
function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The daemon's peak RSS while `until` runs, sampled every 20 ms. */
export async function peakRss(pid: number, until: Promise<unknown>): Promise<number> {
  let peak = rssMB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 20);
  try {
    await until;
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMB(pid));
}

/** A WebSocket client subscribed to `sessionId` that reads everything and parses only what is small (answers). */
async function subscribedReader(d: ServeDaemon, sessionId: string): Promise<{ bytes: () => number; close: () => void }> {
  const ws = new WebSocket(d.wsUrl, { headers: { Authorization: `Bearer ${d.token}` }, maxPayload: 1 << 30 });
  let bytes = 0;
  const answers = new Map<number, (msg: unknown) => void>();
  ws.on("message", (data: Buffer) => {
    bytes += data.length;
    if (data.length > 4096) return;
    const msg = JSON.parse(data.toString()) as { id?: number };
    if (typeof msg.id === "number") answers.get(msg.id)?.(msg);
  });
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  let id = 0;
  const call = (method: string, params: object) =>
    new Promise((resolve) => {
      answers.set(++id, resolve);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  await call("initialize", { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: "bench-reader", version: "0" } });
  await call("subscribe", { sessionId });
  return { bytes: () => bytes, close: () => ws.close() };
}

/**
 * Session `e` (on the hostile provider) is prompted; its endless reply runs until the daemon cuts
 * it. `sample` times another session meanwhile. The stdio peer is unsubscribed from `e`, so its
 * round trips are not queued behind e's events; a WebSocket client reads those.
 */
export async function endlessReplyLoad<T>(d: ServeDaemon, peer: RpcPeer, api: EndlessApi, e: string, sample: (until: Promise<unknown>) => Promise<T>): Promise<{ times: T; rss: number; outcome: string }> {
  await peer.request("unsubscribe", { sessionId: e });
  const reader = await subscribedReader(d, e);
  const ended = api.nextEnd();
  await peer.request("prompt", { sessionId: e, text: "go on" });
  // the run is over once its reply is stored: getState says idle again
  const idle = (async () => {
    await ended;
    for (;;) {
      const state = await peer.request("getState", { sessionId: e });
      if (!state.isRunning) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const rssPeak = peakRss(d.pid, idle);
  const times = await sample(idle);
  const rss = await rssPeak;
  const end = await ended;
  const { messages } = await peer.request("getMessages", { sessionId: e });
  const last = messages.at(-1) as { stopReason?: string; content?: { type: string; text?: string }[] } | undefined;
  const kept = (last?.content ?? []).reduce((n, b) => n + (b.text?.length ?? 0), 0);
  reader.close();
  const mib = (n: number) => `${Math.round(n / (1 << 20))} MiB`;
  return { times, rss, outcome: `${end.how === "client_closed" ? "cut" : end.how} after ${mib(end.streamed)} sent, ${mib(kept)} stored (${last?.stopReason}); reader got ${mib(reader.bytes())}` };
}
