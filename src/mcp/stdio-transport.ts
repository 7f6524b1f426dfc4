// The stdio transport to an MCP server pith starts. Ours rather than the SDK's, because a server
// must not outlive the daemon however it dies: it runs as the leader of its own process group
// registered with the reaper (tools/reaper.ts), so a kill -9 of the daemon ends it (and whatever
// it started) within a second or two, and a close ends the whole group even when the server
// ignores the end of its stdin and SIGTERM. Its stderr is kept (the last few KiB) so a server that
// fails to start is reported with what it said.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { killProcessGroup } from "../tools/process-group.js";
import { reaper, spawnTracked } from "../tools/reaper.js";

/** How much of the server's stderr is kept for an error message. */
const STDERR_TAIL_BYTES = 4096;
/** A closed server gets this long to exit by itself (its stdin ended) before its group is signalled. */
const EXIT_GRACE_MS = 500;
/** ... and this long after SIGTERM before SIGKILL. */
const TERM_GRACE_MS = 1000;
/** One message from the server may be at most this large (a 5 MB tool result fits). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface StdioServerSpec {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private stderrTail = "";
  private exited: Promise<void> | undefined;

  constructor(private readonly spec: StdioServerSpec) {}

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The end of what the server wrote to stderr (why it failed, usually). */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawnTracked(this.spec.command, this.spec.args, { cwd: this.spec.cwd, env: this.spec.env, keepStdin: true });
      this.child = child;
      this.exited = new Promise((done) => child.once("exit", () => done()));
      child.once("error", (err) => reject(err));
      child.once("spawn", () => resolve());
      child.once("exit", () => {
        if (child.pid !== undefined) reaper.untrack(child.pid);
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on("error", () => undefined); // a server that died: its exit reports it
      child.stdout.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
        } catch (err) {
          // a line that is not JSON-RPC (or one past the size limit): the server is not speaking MCP
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        }
      });
      child.stderr.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) throw new Error("the MCP server is not running");
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once("drain", resolve));
  }

  /** Ends the server: its stdin first, then its whole process group (TERM, then KILL). */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pgid = child.pid;
    child.stdin.end();
    const exitedInTime = await Promise.race([this.exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), EXIT_GRACE_MS).unref())]);
    // the group, even when its leader exited: what it started may still run
    await killProcessGroup(pgid, exitedInTime ? 0 : TERM_GRACE_MS);
    reaper.untrack(pgid);
    this.buffer.clear();
  }
}
