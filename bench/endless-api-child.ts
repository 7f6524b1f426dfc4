// A hostile Messages API in a process of its own, for the hostile-loads bench: every request gets a
// text reply whose deltas never end until the client closes the connection (the fake's safety stop,
// argv[2] MiB, ends it otherwise). Prints its URL on stdout, then one JSON line per request when its
// connection is done: how it ended and how many bytes of text it had streamed.
import { endlessReply, startFakeAnthropic } from "../test/support/fake-anthropic.js";

const safetyMB = Number(process.argv[2] ?? 512);
const server = await startFakeAnthropic();
server.setDefault(endlessReply("text", { delta: "endless reply. ", perWrite: 1024, maxBytes: safetyMB << 20 }));
process.stdout.write(server.url + "\n");
let reported = 0;
const report = async (): Promise<void> => {
  for (;;) {
    const i = reported;
    const end = await server.whenEnded(i);
    reported++;
    process.stdout.write(JSON.stringify({ request: i, how: end.how, streamed: server.requests[i]?.streamed ?? 0 }) + "\n");
  }
};
void report();
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
