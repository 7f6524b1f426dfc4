// Drives one tool call of the model through a live daemon: the fake Messages API answers the
// prompt with a tool_use, then with a closing text; the tool's result is what the model got back.
import { textReply, toolUseReply, type FakeAnthropic } from "./fake-anthropic.js";
import { textOf, type Ev, type RpcPeer } from "./daemon-client.js";

export interface ToolOutcome {
  text: string;
  isError: boolean;
  /** every event of the run */
  events: Ev[];
}

/** The model calls `tool` with `args` once; resolves with what the tool answered. */
export async function modelCalls(peer: RpcPeer, fake: FakeAnthropic, sessionId: string, tool: string, args: Record<string, unknown>, timeoutMs?: number): Promise<ToolOutcome> {
  fake.enqueue(toolUseReply(tool, args), textReply("noted"));
  const run = await peer.runPrompt(sessionId, `please run ${tool}`, timeoutMs);
  const end = run.events.find((e) => e.type === "tool_execution_end");
  if (!end) throw new Error(`no tool_execution_end in the run: ${run.events.map((e) => e.type).join(" ")}`);
  return { text: textOf(end.result), isError: end.isError === true, events: run.events };
}

/** The text of every tool result the model was sent, in order, from request `fromRequest` on. */
export function toolResultsSent(fake: FakeAnthropic, fromRequest: number): string[] {
  const out: string[] = [];
  for (const req of fake.requests.slice(fromRequest)) {
    const last = req.body.messages?.at(-1);
    if (last?.role !== "user" || !Array.isArray(last.content)) continue;
    for (const b of last.content) if (b.type === "tool_result") out.push(typeof b.content === "string" ? b.content : JSON.stringify(b.content));
  }
  return out;
}
