// An ACP client's terminals for tests: terminal/create runs the command as an editor would (its own
// environment with the request's env added on top, the request's cwd, combined output kept up to
// outputByteLimit), and terminal/output, wait_for_exit, kill and release answer from it. Every
// request is recorded in order.
import * as acp from "@agentclientprotocol/sdk";
import { spawn, type ChildProcess } from "node:child_process";

interface Running {
  child: ChildProcess;
  output: Buffer;
  truncated: boolean;
  exit?: acp.TerminalExitStatus;
  exited: Promise<acp.TerminalExitStatus>;
}

export interface TestTerminals {
  /** every terminal request, in order */
  requests: { method: string; params: Record<string, unknown> }[];
  /** the processes started, by terminal id */
  running: Map<string, Running>;
  handlers(app: acp.ClientApp): void;
}

/**
 * `editorEnv`: what the "editor's" own environment adds (an editor passes its environment on);
 * `leakFds`: descriptors the "editor" leaks into its terminals (fd number there -> an open fd here).
 */
export function testTerminals(editorEnv: Record<string, string> = {}, leakFds: Record<number, number> = {}): TestTerminals {
  const requests: TestTerminals["requests"] = [];
  const running = new Map<string, Running>();
  let next = 0;
  const get = (id: string): Running => {
    const r = running.get(id);
    if (!r) throw acp.RequestError.invalidParams({ terminalId: id }, "no such terminal");
    return r;
  };
  const handlers = (app: acp.ClientApp) => {
    app.onRequest(acp.methods.client.terminal.create, ({ params }) => {
      requests.push({ method: "terminal/create", params });
      const env = { ...process.env, ...editorEnv, ...Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])) };
      const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
      for (const [at, fd] of Object.entries(leakFds)) {
        while (stdio.length <= Number(at)) stdio.push("ignore");
        stdio[Number(at)] = fd;
      }
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, stdio });
      const limit = params.outputByteLimit ?? Infinity;
      const r: Running = {
        child,
        output: Buffer.alloc(0),
        truncated: false,
        exited: new Promise((resolve) =>
          child.once("close", (code, signal) => {
            r.exit = { exitCode: code, signal };
            resolve(r.exit);
          }),
        ),
      };
      const take = (d: Buffer) => {
        r.output = Buffer.concat([r.output, d]);
        if (r.output.length > limit) {
          r.output = r.output.subarray(r.output.length - limit);
          r.truncated = true;
        }
      };
      child.stdout!.on("data", take);
      child.stderr!.on("data", take);
      const terminalId = `term-${++next}`;
      running.set(terminalId, r);
      return { terminalId };
    });
    app.onRequest(acp.methods.client.terminal.output, ({ params }) => {
      requests.push({ method: "terminal/output", params });
      const r = get(params.terminalId);
      return { output: r.output.toString("utf8"), truncated: r.truncated, ...(r.exit ? { exitStatus: r.exit } : {}) };
    });
    app.onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      requests.push({ method: "terminal/wait_for_exit", params });
      return await get(params.terminalId).exited;
    });
    app.onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      requests.push({ method: "terminal/kill", params });
      // the process the editor started, as an editor would; pith makes sure of the rest
      get(params.terminalId).child.kill("SIGTERM");
      return {};
    });
    app.onRequest(acp.methods.client.terminal.release, ({ params }) => {
      requests.push({ method: "terminal/release", params });
      const r = get(params.terminalId);
      if (!r.exit) r.child.kill("SIGKILL");
      return {};
    });
  };
  return { requests, running, handlers };
}
