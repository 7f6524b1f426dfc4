// The MCP servers the daemon tests and the bench start (test/support/mcp-server.mjs over stdio,
// mcp-http-server.ts over streamable HTTP), driven with the official client: if these hold, a daemon
// test that fails is about pith, not about its test servers.
// full suite only: the test servers' own checks, one server process per flag
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startMcpHttpServer, type McpHttpServer } from "../support/mcp-http-server.js";
import { bigText, RED_PIXEL_PNG } from "../support/mcp-tools.mjs";

const SERVER = fileURLToPath(new URL("../support/mcp-server.mjs", import.meta.url));

interface Connected {
  client: Client;
  /** resolves at the next notifications/tools/list_changed, with the refreshed list */
  nextToolList: () => Promise<string[]>;
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport, mode: "legacy" | "auto" = "legacy"): Promise<Connected> {
  let changed: (names: string[]) => void = () => {};
  const client = new Client(
    { name: "pith-test", version: "1" },
    {
      versionNegotiation: { mode },
      listChanged: { tools: { debounceMs: 0, onChanged: (_err, tools) => changed((tools ?? []).map((t) => t.name)) } },
    },
  );
  await client.connect(transport);
  return { client, nextToolList: () => new Promise((resolve) => (changed = resolve)) };
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
}

// The same checks over both transports.
function exercise(name: string, open: (notesDir: string, cancelLog: string) => Promise<Connected>): void {
  describe(name, () => {
    let conn: Connected;
    const notesDir = mkdtempSync(join(tmpdir(), "pith-mcp-"));
    const cancelLog = join(notesDir, "cancel.log");
    before(async () => (conn = await open(notesDir, cancelLog)));
    after(async () => {
      await conn.client.close();
      rmSync(notesDir, { recursive: true, force: true });
    });

    test("tools are listed with their annotations", async () => {
      const { tools } = await conn.client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const n of ["echo", "write_note", "read_file", "big", "hang", "crash", "fail", "image", "resource", "progress", "add_tool", "pid"]) {
        assert.ok(byName.has(n), `tool ${n}`);
      }
      assert.equal(byName.get("echo")?.annotations?.readOnlyHint, true);
      assert.equal(byName.get("write_note")?.annotations, undefined);
      assert.deepEqual(byName.get("echo")?.inputSchema.required, ["text"]);
    });

    test("echo, write_note, read_file, fail, image, resource", async () => {
      const c = conn.client;
      assert.equal(textOf(await c.callTool({ name: "echo", arguments: { text: "hé" } })), "echo: hé");
      assert.equal(textOf(await c.callTool({ name: "write_note", arguments: { name: "n1", text: "body" } })), "wrote n1");
      assert.equal(readFileSync(join(notesDir, "n1"), "utf8"), "body");
      assert.equal(textOf(await c.callTool({ name: "read_file", arguments: { path: join(notesDir, "n1") } })), "body");
      assert.equal((await c.callTool({ name: "read_file", arguments: { path: join(notesDir, "none") } })).isError, true);
      assert.equal((await c.callTool({ name: "write_note", arguments: { name: "../x", text: "" } })).isError, true);
      const failed = await c.callTool({ name: "fail", arguments: {} });
      assert.equal(failed.isError, true);
      assert.equal(textOf(failed), "the tool failed on purpose");
      const image = await c.callTool({ name: "image", arguments: {} });
      assert.equal(image.content[0]?.type === "text" && image.content[0].text, "a red pixel");
      const png = image.content[1];
      assert.ok(png?.type === "image" && png.mimeType === "image/png");
      assert.equal(png.data, RED_PIXEL_PNG);
      assert.equal(Buffer.from(png.data, "base64").subarray(1, 4).toString(), "PNG");
      const res = (await c.callTool({ name: "resource", arguments: {} })).content[0];
      assert.ok(res?.type === "resource" && "text" in res.resource);
      assert.deepEqual([res.resource.uri, res.resource.text], ["note://x", "resource text"]);
    });

    test("big answers exactly the bytes asked, marked at both ends", async () => {
      const text = textOf(await conn.client.callTool({ name: "big", arguments: { bytes: 300_001 } }));
      assert.equal(Buffer.byteLength(text), 300_001);
      assert.ok(text.startsWith("BIG-START line 000001 x"));
      assert.ok(text.endsWith("BIG-END"));
      assert.match(text.split("\n")[1] ?? "", /^line 000002 x+$/);
      assert.equal(text, bigText(300_001));
    });

    test("progress reaches the caller's callback", async () => {
      const seen: number[] = [];
      const out = await conn.client.callTool({ name: "progress", arguments: { steps: 4, ms: 5 } }, { onprogress: (p) => void seen.push(p.progress) });
      // the client dispatches notifications a tick later than responses: over stdio the last
      // progress, written just before the answer, can arrive after the call is settled and be dropped
      assert.deepEqual(seen, [1, 2, 3, 4].slice(0, seen.length));
      assert.ok(seen.length >= 3, `progress seen: ${seen.join(",")}`);
      assert.equal(textOf(out), "done after 4 steps");
    });

    test("add_tool announces list_changed and the late tool answers", async () => {
      const next = conn.nextToolList();
      assert.equal(textOf(await conn.client.callTool({ name: "add_tool", arguments: {} })), "added");
      assert.ok((await next).includes("late"));
      assert.equal(textOf(await conn.client.callTool({ name: "late", arguments: {} })), "late tool");
    });

    test("hang is cancelled by the caller's AbortSignal and logs it", async () => {
      const abort = new AbortController();
      const call = conn.client.callTool({ name: "hang", arguments: {} }, { signal: abort.signal });
      const pending = assert.rejects(call);
      // the call is in flight once a later request on the same connection is answered
      await conn.client.callTool({ name: "echo", arguments: { text: "x" } });
      abort.abort();
      await pending;
      await waitFor(() => existsSync(cancelLog) && /^cancelled \S+$/m.test(readFileSync(cancelLog, "utf8")));
      assert.match(readFileSync(cancelLog, "utf8"), /^cancelled \d+$/m);
    });
  });
}

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

exercise("stdio server", (notesDir, cancelLog) => {
  const env = { ...process.env, NOTES_DIR: notesDir, CANCEL_LOG: cancelLog } as Record<string, string>;
  return connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], env, stderr: "inherit" }));
});

let http: McpHttpServer | undefined;
exercise("streamable HTTP server", async (notesDir, cancelLog) => {
  http = await startMcpHttpServer({ notesDir, cancelLog });
  return connect(new StreamableHTTPClientTransport(new URL(http.url)));
});
after(() => http?.close());

// A server process spoken to line by line, to see its exit code and stderr.
function rawServer(args: string[]) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const send = (msg: object) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
  const initialize = async () => {
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await waitFor(() => stdout.includes('"id":1'), 5000);
    send({ method: "notifications/initialized" });
  };
  return { child, exited, send, initialize, out: () => stdout, err: () => stderr };
}

describe("stdio server flags", () => {
  test("crash exits with code 3 in the middle of the call; --pid-file holds the pid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pith-mcp-"));
    try {
      const pidFile = join(dir, "pid");
      const s = rawServer(["--pid-file", pidFile, "--only", "crash"]);
      await s.initialize();
      assert.equal(readFileSync(pidFile, "utf8"), `${s.child.pid}\n`);
      s.send({ id: 2, method: "tools/call", params: { name: "crash", arguments: {} } });
      assert.deepEqual(await s.exited, { code: 3, signal: null });
      assert.ok(!s.out().includes('"id":2'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--fail-start says why on stderr and exits 1", async () => {
    const s = rawServer(["--fail-start"]);
    assert.deepEqual(await s.exited, { code: 1, signal: null });
    assert.equal(s.err(), "cannot open the database: /nope\n");
    assert.equal(s.out(), "");
  });

  test("--ignore-end outlives the end of stdin and SIGTERM/SIGINT/SIGHUP; SIGKILL ends it", async () => {
    const s = rawServer(["--ignore-end"]);
    await s.initialize();
    s.child.stdin.end();
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) s.child.kill(signal);
    const early = await Promise.race([s.exited, new Promise((resolve) => setTimeout(() => resolve("alive"), 300))]);
    assert.equal(early, "alive");
    s.child.kill("SIGKILL");
    assert.deepEqual(await s.exited, { code: null, signal: "SIGKILL" });
  });

  test("a plain server ends with its stdin", async () => {
    const s = rawServer([]);
    await s.initialize();
    s.child.stdin.end();
    assert.deepEqual(await s.exited, { code: 0, signal: null });
  });

  test("--only, --no-annotations and --slow-start", async () => {
    const started = Date.now();
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, "--only", "echo,pid", "--no-annotations", "--slow-start", "150"] });
    const { client } = await connect(transport);
    try {
      assert.ok(Date.now() - started >= 150);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => [t.name, t.annotations]), [["echo", undefined], ["pid", undefined]]);
      assert.equal(textOf(await client.callTool({ name: "pid", arguments: {} })), String(transport.pid));
    } finally {
      await client.close();
    }
  });

  test("a 2026-07-28 client (version negotiation auto) is served too", async () => {
    const { client } = await connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, "--only", "echo"] }), "auto");
    try {
      assert.equal(client.getProtocolEra(), "modern");
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "new" } })), "echo: new");
    } finally {
      await client.close();
    }
  });
});

describe("HTTP server: auth, headers, crash and restart", () => {
  test("bearer and required header refuse, then serve; crash fails the call until restart", async () => {
    const server = await startMcpHttpServer({ bearer: "s3cret", requireHeader: ["X-Team", "core"] });
    try {
      const status = (code: number) => (err: unknown) => err instanceof SdkHttpError && err.status === code;
      await assert.rejects(connect(new StreamableHTTPClientTransport(new URL(server.url))), status(401));
      const bearerOnly = { requestInit: { headers: { Authorization: "Bearer s3cret" } } };
      await assert.rejects(connect(new StreamableHTTPClientTransport(new URL(server.url), bearerOnly)), status(403));
      assert.equal(server.requests, 2);
      const headers = { Authorization: "Bearer s3cret", "X-Team": "core" };
      const open = () => connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
      const { client } = await open();
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "in" } })), "echo: in");
      assert.ok(server.headersSeen.some((h) => h.authorization === "Bearer s3cret" && h["x-team"] === "core"));
      await assert.rejects(client.callTool({ name: "crash", arguments: {} }));
      await assert.rejects(open());
      await client.close();
      await server.restart();
      const again = await open();
      assert.equal(textOf(await again.client.callTool({ name: "pid", arguments: {} })), String(process.pid));
      await again.client.close();
    } finally {
      await server.close();
    }
  });

  test("a 2026-07-28 client (version negotiation auto) is served too", async () => {
    const server = await startMcpHttpServer();
    try {
      const { client } = await connect(new StreamableHTTPClientTransport(new URL(server.url)), "auto");
      assert.equal(client.getProtocolEra(), "modern");
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "new" } })), "echo: new");
      await client.close();
    } finally {
      await server.close();
    }
  });
});
