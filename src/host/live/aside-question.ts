// A question put to a session's model about its context, outside the session: the request the
// agent would send next (its system prompt, tools, model and thinking level, the context as the
// model sees it), with the question after the context. Nothing is stored and no tool runs: this
// is how `pith eval` probes what a compacted context still knows, exactly as the model would
// meet it on the next turn.
import { modelViews } from "../../messages/cut-reply.js";
import type { AgentMessage, Usage } from "../../messages/types.js";
import { emptyUsage } from "../../messages/types.js";
import type { Provider, StreamRequest } from "../../llm/types.js";
import type { LastRequest } from "../compaction/last-request.js";

/** What the agent's next request carries besides the context. */
export type RequestParts = Pick<StreamRequest, "model" | "systemPrompt" | "tools" | "thinkingLevel">;

export interface AsideAnswer {
  /** the reply's text (a tool call in it is not run, and not part of the answer) */
  text: string;
  /** the tools the reply called instead of (or besides) answering: a model that would look again */
  toolCalls: string[];
  usage: Usage;
  /** why the request failed, when it did */
  error?: string;
}

/** The agent's request for `context`, as it would send it. */
function contextRequest(parts: RequestParts, context: readonly AgentMessage[], maxTokens: number): Omit<StreamRequest, "signal"> {
  return { ...parts, messages: modelViews(context), maxTokens: Math.min(maxTokens, parts.model.maxOutputTokens) };
}

/** The request for `question` after `context`. */
function asideRequest(parts: RequestParts, context: readonly AgentMessage[], question: string, maxTokens: number): Omit<StreamRequest, "signal"> {
  const ask: AgentMessage = { role: "user", content: question, timestamp: Date.now() };
  return contextRequest(parts, [...context, ask], maxTokens);
}

export async function askAside(provider: Provider, request: Omit<StreamRequest, "signal">, signal: AbortSignal): Promise<AsideAnswer> {
  for await (const ev of provider.stream({ ...request, signal })) {
    if (ev.type === "error") return { text: textOf(ev.message.content), toolCalls: callsOf(ev.message.content), usage: ev.message.usage ?? emptyUsage(), error: ev.error.message };
    if (ev.type === "done") return { text: textOf(ev.message.content), toolCalls: callsOf(ev.message.content), usage: ev.message.usage };
  }
  return { text: "", toolCalls: [], usage: emptyUsage(), error: "the stream ended without a reply" };
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

function callsOf(content: readonly { type: string; name?: string }[]): string[] {
  return content.flatMap((b) => (b.type === "toolCall" && typeof b.name === "string" ? [b.name] : []));
}

/** A live session's side of it: what its next request would carry, read when asked. */
export class SessionAside {
  constructor(private readonly of: { parts(): RequestParts; context(): readonly AgentMessage[]; provider(): Provider; lastRequest: LastRequest }) {}

  /** The question after the session's context, answered by its model; nothing is stored. */
  ask(question: string, signal: AbortSignal, maxTokens: number): Promise<AsideAnswer> {
    return askAside(this.of.provider(), asideRequest(this.of.parts(), this.of.context(), question, maxTokens), signal);
  }

  /**
   * Records, as the agent's last request, the one that produced the context's last reply: what a
   * session that just ran has, so the next summary can be framed as the conversation (an eval's
   * case has no run behind it). False when the context does not end with a reply.
   */
  recordLastRequest(): boolean {
    const messages = this.of.context();
    const last = messages.length - 1;
    if (last < 1 || messages[last].role !== "assistant") return false;
    const parts = this.of.parts();
    this.of.lastRequest.record({ ...contextRequest(parts, messages.slice(0, last), parts.model.maxOutputTokens), signal: AbortSignal.abort() });
    return true;
  }
}
