// The two ways a client drives the same pith turn, for the ACP bench: `pith acp` through the ACP
// SDK's own client side, and pith's own stdio JSON-RPC (`pith --mode rpc`) through the test peer
// (clients/ts). Both run the real binary against the same fake Messages API, with the same settings,
// and are timed at the same place: the lines on the daemon's stdout as they arrive.
import * as acp from "@agentclientprotocol/sdk";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAcp } from "../test/support/acp-daemon.js";
import { Cleanup, startRpcDaemon, writeSettings } from "../test/support/daemon-client.js";
import type { FakeAnthropic } from "../test/support/fake-anthropic.js";
import { tempDir } from "../test/support/tmp.js";
import { cpuMs } from "./proc-cpu.js";
import { StdoutLines, type ArrivedLine } from "./stdout-lines.js";

/** A window that holds a 1 MB write without compacting: the bench measures the wire, not compaction. */
const BENCH_MODEL = { id: "bench-model", contextWindow: 2_000_000, maxOutputTokens: 8_000 };

export interface Turn {
  /** performance.now() just before the prompt was sent */
  t0: number;
  /** every line the daemon wrote from the prompt to the turn's end, the end included */
  lines: ArrivedLine[];
  /** CPU the daemon used from before the prompt to the turn's last line (ms, in clock ticks) */
  cpuMs: number;
}

export interface Front {
  name: string;
  /** the session's working directory (holds notes.md for the tool turn) */
  cwd: string;
  /** sends a prompt, resolves when the turn's last line has arrived */
  turn(text: string): Promise<Turn>;
  /** a line that carries the model's reply text (a streamed chunk) */
  isText(line: ArrivedLine): boolean;
  end(): Promise<void>;
}

function parsed(line: ArrivedLine): { method?: string; params?: { update?: { sessionUpdate?: string }; delta?: { type?: string } } } {
  try {
    return JSON.parse(line.text);
  } catch {
    return {};
  }
}

function workspace(hooks: Cleanup): { home: string; cwd: string } {
  const home = tempDir(hooks);
  const cwd = tempDir(hooks);
  writeSettings(home, { models: [BENCH_MODEL], model: BENCH_MODEL.id });
  writeFileSync(join(cwd, "notes.md"), Array.from({ length: 200 }, (_, i) => `- note ${i}: the build passes on Node 20`).join("\n"));
  return { home, cwd };
}

export async function acpFront(fake: FakeAnthropic, hooks: Cleanup): Promise<Front> {
  const { home, cwd } = workspace(hooks);
  const a = await startAcp(hooks, { home, fake, cwd });
  const lines = new StdoutLines(a.proc.stdout);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return {
    name: "pith acp",
    cwd,
    turn: async (text) => {
      lines.take();
      // the prompt's answer is the turn's last line
      const end = lines.next((l) => l.text.includes('"stopReason"') && !l.text.includes('"method"'), "the prompt's answer");
      const cpu0 = cpuMs(a.proc.pid);
      const t0 = performance.now();
      const answer = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text }] });
      await end;
      const cpu = cpuMs(a.proc.pid) - cpu0;
      await answer;
      return { t0, lines: lines.take(), cpuMs: cpu };
    },
    isText: (line) => {
      const m = parsed(line);
      return m.method === acp.methods.client.session.update && m.params?.update?.sessionUpdate === "agent_message_chunk";
    },
    end: async () => {
      await a.end();
    },
  };
}

export async function rpcFront(fake: FakeAnthropic, hooks: Cleanup): Promise<Front> {
  const { home, cwd } = workspace(hooks);
  const d = startRpcDaemon(hooks, { home, fake, cwd });
  const lines = new StdoutLines(d.proc.stdout!);
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  return {
    name: "pith --mode rpc",
    cwd,
    turn: async (text) => {
      lines.take();
      // one session on this connection: its agent_end is the turn's last line
      const end = lines.next((l) => l.text.includes('"method":"agent_end"'), "agent_end");
      const cpu0 = cpuMs(d.pid);
      const t0 = performance.now();
      await d.peer.request("prompt", { sessionId: s.sessionId, text });
      await end;
      return { t0, lines: lines.take(), cpuMs: cpuMs(d.pid) - cpu0 };
    },
    isText: (line) => {
      const m = parsed(line);
      return m.method === "message_update" && m.params?.delta?.type === "text";
    },
    end: async () => {
      d.endStdin();
      await d.waitExit();
    },
  };
}
