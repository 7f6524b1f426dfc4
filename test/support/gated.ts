// A live session's exclusive operations called the way the front ends call them: through the
// session's gate (LiveSession.admit, what src/host/method-gate.ts uses for an "exclusive" row),
// so a test exercises the same refusals a client gets. A refusal is a rejected promise, as it
// is for a client.
import type { ThinkingLevel } from "../../src/llm/types.js";
import type { LiveSession } from "../../src/host/live-session.js";
import type { ImageContent } from "../../src/messages/types.js";

export function gated(s: LiveSession) {
  const sessionId = s.id;
  return {
    prompt: async (input: { text: string; images?: ImageContent[]; delivery?: "steer" | "followUp" }) =>
      s.admit("prompt", { sessionId, text: input.text, ...(input.delivery ? { delivery: input.delivery } : {}) }, (held) => s.prompt(held, input)),
    compact: async (instructions?: string) => s.admit("compact", { sessionId, instructions }, (held) => s.compact(held, instructions)),
    navigateTree: async (targetId: string, summarize = false, instructions?: string) =>
      s.admit("navigateTree", { sessionId, targetId, summarize, instructions }, (held) => s.navigateTree(held, targetId, summarize, instructions)),
    bash: async (command: string) => s.admit("bash", { sessionId, command }, (held) => s.bash(held, command)),
    setModel: async (model: string) => s.admit("setModel", { sessionId, model }, (held) => s.setModel(held, model)),
    setThinkingLevel: async (level: ThinkingLevel) => s.admit("setThinkingLevel", { sessionId, level }, (held) => s.setThinkingLevel(held, level)),
  };
}
