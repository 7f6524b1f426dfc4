// A live session's exclusive operations called the way the fronts call them: through the host's
// operation layer (src/host/operations/perform.ts) over this one session, so a test exercises the
// same refusals and durability a client gets. A refusal is a rejected promise, as it is for a client.
import type { ThinkingLevel } from "../../src/llm/types.js";
import type { LiveSession } from "../../src/host/live/live-session.js";
import type { ImageContent } from "../../src/messages/types.js";
import { perform, type OperationSessions } from "../../src/host/operations/perform.js";

export function gated(s: LiveSession) {
  const sessionId = s.id;
  const sessions: OperationSessions = { get: () => s, durable: () => s.file.flushed() };
  return {
    prompt: async (input: { text: string; images?: ImageContent[]; delivery?: "steer" | "followUp" }) =>
      perform(sessions, "prompt", { sessionId, text: input.text, ...(input.delivery ? { delivery: input.delivery } : {}) }, (held) => s.prompt(held, input)),
    compact: async (instructions?: string) => perform(sessions, "compact", { sessionId, instructions }, (held) => s.compact(held, instructions)),
    navigateTree: async (targetId: string, summarize = false, instructions?: string) =>
      perform(sessions, "navigateTree", { sessionId, targetId, summarize, instructions }, (held) => s.navigateTree(held, targetId, summarize, instructions)),
    bash: async (command: string) => perform(sessions, "bash", { sessionId, command }, (held) => s.bash(held, command)),
    setModel: async (model: string) => perform(sessions, "setModel", { sessionId, model }, (held) => s.setModel(held, model)),
    setThinkingLevel: async (level: ThinkingLevel) => perform(sessions, "setThinkingLevel", { sessionId, level }, (held) => s.setThinkingLevel(held, level)),
  };
}
