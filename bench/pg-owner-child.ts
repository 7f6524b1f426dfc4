// Child process for pg-store.bench.ts (takeover after kill -9):
// `node --import tsx bench/pg-owner-child.ts <url> <node id> <session id> <spool dir>`.
// Connects a PgSessionStore node (1 s heartbeat, 60 s lease), opens the session through
// store.open (it takes ownership), prints "owner", then appends a message every 20 ms and waits
// for it to be committed, as a live writer would, until it is killed. Output goes through
// writeSync(1) (see test/support/appender-child.mjs): a line printed is a line the parent sees,
// even under SIGKILL.
import { writeSync } from "node:fs";
import { createLogger } from "../src/log/logger.js";
import { PgSessionStore } from "../src/session/postgres/pg-store.js";

const say = (text: string) => writeSync(1, `${text}\n`);
const [url, nodeId, sessionId, spoolDir] = process.argv.slice(2);
const store = await PgSessionStore.connect({ url, nodeId, spoolDir, logger: createLogger("silent"), heartbeatMs: 1_000, leaseMs: 60_000 });
const file = await store.open({ sessionId });
say("owner");
for (let i = 0; ; i++) {
  file.appendMessage({ role: "user", content: [{ type: "text", text: `${nodeId} still writing (${i})` }], timestamp: Date.now() });
  await file.flushed();
  await new Promise((r) => setTimeout(r, 20));
}
