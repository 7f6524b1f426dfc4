// Child process for pg-liveness.test.ts: `node --import tsx pg-node-child.ts <socket dir> <port> <database> <node id> <session id>`.
// Registers the node (its advisory lock and a 1 s heartbeat), takes the session with a 60 s lease,
// prints "owner <epoch> <next seq>", then appends one entry every 20 ms, printing "acked <seq>"
// after each append returns, until it is killed. Output goes through writeSync(1) (see
// appender-child.mjs): a line printed is a line the parent sees, even under SIGKILL.
import { writeSync } from "node:fs";
import { registerNode } from "../../src/session/postgres/nodes.js";
import { appendEntries, takeOwnership } from "../../src/session/postgres/ownership.js";
import { openPool } from "../../src/session/postgres/pool.js";

const say = (text: string) => writeSync(1, `${text}\n`);
const [host, port, database, nodeId, sessionId] = process.argv.slice(2);
const config = { host, port: Number(port), user: "pith", database };
await registerNode(config, nodeId, { heartbeatMs: 1_000 });
const pool = await openPool({ ...config, max: 2 });
const own = await takeOwnership(pool, sessionId, nodeId, { leaseMs: 60_000 });
say(`owner ${own.epoch} ${own.nextSeq}`);
for (let i = 0; ; i++) {
  const at = own.nextSeq;
  await appendEntries(pool, own, [{ type: "custom", id: `${nodeId}-${i}`, parentId: null, timestamp: new Date().toISOString() }]);
  say(`acked ${at}`);
  await new Promise((r) => setTimeout(r, 20));
}
