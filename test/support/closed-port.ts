// A port on 127.0.0.1 nothing listens on: taken from the system, then given back, so a client
// sent there meets a refused connection (a provider whose server is not running).
import { createServer } from "node:net";

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
