// The editor's terminal for the model's bash (ACP terminal/create, terminal/output,
// terminal/wait_for_exit, terminal/kill, terminal/release), when the client advertised
// clientCapabilities.terminal. The command line comes from the tools (terminal-launch.ts): pith's
// launcher, sandbox included; this only carries the requests.
import type * as acp from "@agentclientprotocol/sdk";
import type { EditorTerminal, TerminalExit } from "../tools/editor-ports.js";

export function editorTerminal(client: acp.AgentContext, sessionId: string): EditorTerminal {
  return {
    async create(request) {
      const handle = await client.createTerminal({
        sessionId,
        command: request.command,
        args: request.args,
        env: Object.entries(request.env).map(([name, value]) => ({ name, value })),
        cwd: request.cwd,
        ...(request.outputByteLimit !== undefined ? { outputByteLimit: request.outputByteLimit } : {}),
      });
      return {
        id: handle.id,
        waitForExit: async () => exitOf(await handle.waitForExit()),
        output: async () => {
          const got = await handle.currentOutput();
          return { output: got.output, truncated: got.truncated, ...(got.exitStatus ? { exit: exitOf(got.exitStatus) } : {}) };
        },
        kill: async () => {
          await handle.kill();
        },
        release: async () => {
          await handle.release();
        },
      };
    },
  };
}

function exitOf(status: acp.TerminalExitStatus | acp.WaitForTerminalExitResponse): TerminalExit {
  return { code: status.exitCode ?? null, signal: status.signal ?? null };
}
