// A session on a fake Ollama server that cuts a prompt without saying so: three honest turns of
// ~3k tokens each, then one whose reply reports only 2,000 prompt tokens read (what a local
// server does when its window is smaller than the request). The tests of what pith makes of
// that (learn the window, compact, or with automatic compaction off only report it) share it.
import { ollamaText, type FakeOllama } from "./fake-ollama.js";
import { agentEnd, bigText, startRpcDaemon, writeSettings, type Ev, type RpcDaemon } from "./daemon-client.js";
import { tempDir } from "./tmp.js";

type Hooks = Parameters<typeof tempDir>[0] & Parameters<typeof startRpcDaemon>[0];

export interface CutPromptRun {
  d: RpcDaemon;
  sessionId: string;
  /** the events of the run whose prompt the server cut */
  events: Ev[];
  /** chat requests before that run */
  requestsBefore: number;
}

export async function runCutPrompt(t: Hooks, ollama: FakeOllama, options: { autoCompaction?: boolean } = {}): Promise<CutPromptRun> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { providers: { box: { api: "ollama", baseUrl: ollama.url } } });
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd, model: "box/qwen3:8b" });
  if (options.autoCompaction === false) await d.peer.request("setAutoCompactionEnabled", { sessionId, enabled: false });
  for (let i = 0; i < 3; i++) {
    ollama.enqueue(ollamaText(`noted ${i}`));
    const honest = await d.peer.runPrompt(sessionId, bigText(`PART-${i}`, 2000), 30_000);
    if (agentEnd(honest.events).stopReason !== "stop") throw new Error(`honest turn ${i} ended ${agentEnd(honest.events).stopReason}`);
  }
  ollama.enqueue(ollamaText("I only saw the end of that.", { promptEvalCount: 2000, evalCount: 48 }));
  const requestsBefore = ollama.chatRequests.length;
  const run = await d.peer.runPrompt(sessionId, bigText("PART-3", 2000), 30_000);
  return { d, sessionId, events: run.events, requestsBefore };
}
