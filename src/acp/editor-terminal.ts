// The editor's terminal for the model's bash (ACP terminal/create, terminal/output,
// terminal/wait_for_exit, terminal/kill, terminal/release), when the client advertised
// clientCapabilities.terminal. The command line comes from the tools (terminal-launch.ts): pith's
// launcher, sandbox included; this only carries the requests.
import type * as acp from "@agentclientprotocol/sdk";
import type { EditorTerminal, TerminalExit } from "../tools/editor-ports.js";

/**
 * terminal/output answers with all the output the editor kept, in one message, and pith reads no
 * message over 32 MiB (cli/acp-stdin.ts): JSON can spend 6 bytes on one byte of output (\u001b),
 * so the editor is asked to keep at most 4 MiB, whatever pith's own output cap.
 */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export function editorTerminal(client: acp.AgentContext, sessionId: string): EditorTerminal {
  return {
    maxOutputBytes: MAX_OUTPUT_BYTES,
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
