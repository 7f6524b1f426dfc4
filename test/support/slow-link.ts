// A unix-socket proxy in front of a test PostgreSQL that can slow the link down: each chunk
// either way arrives `delayMs` late, so a commit reaches the server late and its acknowledgment
// comes back late. What a client sent but the proxy had not yet delivered when the client died is
// dropped, as if the process had been killed before sending it: a daemon may only say "stored"
// once the server acknowledged it. Clients reach the proxy with the same URL shape (host = its
// dir, the server's port), since libpq and pg name a unix socket `<host>/.s.PGSQL.<port>`.
// Delays are equal per chunk, so order holds.
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Postgres } from "./postgres.js";

type Hooks = { after(fn: () => unknown): void };

export interface SlowLink {
  /** the proxied URL (as Postgres.url, through the proxy) */
  url: string;
  /** how late the server's bytes reach the client from now on (0: at once) */
  delayMs: number;
}

export async function slowLink(t: Hooks, server: Postgres): Promise<SlowLink> {
  const dir = mkdtempSync(join(tmpdir(), "pith-slow-pg-"));
  const sockets = new Set<Socket>();
  const link: SlowLink = { url: `postgresql://${server.user}@/${encodeURIComponent(server.database)}?host=${encodeURIComponent(dir)}&port=${server.port}`, delayMs: 0 };
  const proxy = createServer((client) => {
    const upstream = createConnection(join(server.host, `.s.PGSQL.${server.port}`));
    sockets.add(client).add(upstream);
    const pass = (to: Socket) => (chunk: Buffer) => {
      if (link.delayMs === 0) to.write(chunk);
      else setTimeout(() => !client.destroyed && !to.destroyed && to.write(chunk), link.delayMs);
    };
    client.on("data", pass(upstream));
    upstream.on("data", pass(client));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => proxy.listen(join(dir, `.s.PGSQL.${server.port}`), resolve));
  t.after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return link;
}
