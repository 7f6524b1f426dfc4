// The fake Messages API in a process of its own, for the daemon bench: every request gets a long
// streamed reply (DELTAS text deltas, one character each). Prints its URL on stdout.
import { reply, startFakeAnthropic } from "../test/support/fake-anthropic.js";

const deltas = Number(process.argv[2] ?? 20_000);
const server = await startFakeAnthropic();
server.setDefault(reply([{ type: "text", text: "x".repeat(deltas), chunkSize: 1 }], { pings: 0, usage: { input_tokens: 10, output_tokens: deltas, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }));
process.stdout.write(server.url + "\n");
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
