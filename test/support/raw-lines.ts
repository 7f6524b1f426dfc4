// `bin/pith` as a child process read and written as raw JSON-RPC lines, for what a client built on
// a library would not send: several requests in one write, before any answer came back.
import { spawn } from "node:child_process";
import { LineReader, NO_LINE_LIMIT } from "../../protocol/ndjson-lines.js";
import "./fresh-dist.js";
import { BIN, daemonEnv } from "./daemon-client.js";
import { tempDir } from "./tmp.js";

type Hooks = { after(fn: () => unknown): void };

type RawAnswer = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

export interface RawLines {
  cwd: string;
  /** writes all the messages in one write, one line each */
  write(...messages: Array<{ id: number; method: string; params: object }>): void;
  /** the answer to request `id`, once it has come */
  answer(id: unknown, ms?: number): Promise<RawAnswer>;
  /** the ids of the answers, in the order they came */
  order: unknown[];
}

export function rawLines(t: Hooks, args: string[]): RawLines {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, env: daemonEnv({ home }), stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  t.after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await exited;
  });
  const answers = new Map<unknown, RawAnswer>();
  const order: unknown[] = [];
  const waiters = new Set<() => void>();
  const lines = new LineReader(
    {
      line(text) {
        const m = JSON.parse(text) as RawAnswer & { method?: string };
        if (m.method === undefined && "id" in m) {
          answers.set(m.id, m);
          order.push(m.id);
        }
      },
      oversize: () => {},
    },
    NO_LINE_LIMIT,
  );
  proc.stdout.on("data", (c: Buffer) => {
    lines.push(c);
    for (const w of waiters) w();
  });
  const answer = (id: unknown, ms = 10_000): Promise<RawAnswer> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const got = answers.get(id);
        if (!got) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(got);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no answer to id ${String(id)} in ${ms} ms; stderr: ${stderr}`));
      }, ms);
      waiters.add(check);
      check();
    });
  const write: RawLines["write"] = (...messages) => proc.stdin.write(messages.map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`).join(""));
  return { cwd, write, answer, order };
}
