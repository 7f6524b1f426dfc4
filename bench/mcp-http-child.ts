// The tests' streamable-HTTP MCP server in a process of its own, for the mcp bench: so that its
// work is not done in the bench's process, beside the fake Messages API the daemon waits on.
// Prints its URL on stdout; stops on SIGTERM.
import { startMcpHttpServer } from "../test/support/mcp-http-server.js";

const server = await startMcpHttpServer();
process.stdout.write(server.url + "\n");
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
