// How long a daemon's event loop is held, seen from outside: another client, on its own WebSocket
// and in its own thread, asks getState for another session over and over while the measured call
// runs. In the bench's own thread the probe would also count the bench's work on the big answer
// (parsing and validating a 10,000-session listing took longer than the daemon's call itself).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// plain CommonJS, so the worker needs no loader
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
const WebSocket = require(workerData.ws);
const ws = new WebSocket(workerData.url, { headers: { Authorization: "Bearer " + workerData.token } });
let nextId = 0;
let waiting = null;
let stopped = false;
const times = [];
ws.on("message", (data) => {
  const msg = JSON.parse(String(data));
  if (waiting && msg.id === waiting.id) {
    const w = waiting;
    waiting = null;
    w.resolve(msg);
  }
});
const call = (method, params) =>
  new Promise((resolve) => {
    waiting = { id: ++nextId, resolve };
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: nextId, method, params }));
  });
parentPort.on("message", () => (stopped = true));
ws.on("error", (err) => parentPort.postMessage({ error: String(err) }));
ws.on("open", async () => {
  await call("initialize", { protocolVersion: 1, clientInfo: { name: "loop-probe", version: "0" } });
  parentPort.postMessage({ ready: true });
  while (!stopped) {
    const t0 = performance.now();
    const answer = await call("getState", { sessionId: workerData.sessionId });
    if (answer.error) {
      parentPort.postMessage({ error: JSON.stringify(answer.error) });
      return;
    }
    times.push(performance.now() - t0);
  }
  ws.close();
  parentPort.postMessage({ times });
});
`;

export interface LoopHold {
  /** getState round trips during the call, sorted, in ms */
  times: number[];
  p99: number;
  max: number;
}

/** Runs `call` while a probe on `url` times getState of `sessionId`; the daemon must serve WebSockets. */
export async function measureLoopHold(target: { url: string; token: string; sessionId: string }, call: () => Promise<unknown>): Promise<LoopHold & { callMs: number }> {
  const worker = new Worker(PROBE, { eval: true, workerData: { ...target, ws: createRequire(import.meta.url).resolve("ws") } });
  try {
    const next = () =>
      new Promise<{ ready?: true; times?: number[]; error?: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
    const ready = await next();
    if (ready.error) throw new Error(`loop probe: ${ready.error}`);
    const t0 = performance.now();
    await call();
    const callMs = performance.now() - t0;
    const done = next();
    worker.postMessage("stop");
    const { times, error } = await done;
    if (error || !times) throw new Error(`loop probe: ${error ?? "no figures"}`);
    times.sort((a, b) => a - b);
    return { times, p99: times[Math.floor(times.length * 0.99)] ?? 0, max: times.at(-1) ?? 0, callMs };
  } finally {
    await worker.terminate();
  }
}
