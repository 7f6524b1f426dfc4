// The agent a live session runs: its tools, the system prompt for the session's directory, the
// model and thinking level in effect, and the run policy's hooks. Rebuilt when the model or the
// thinking level changes; the session keeps the overhead (prompt and tool definitions, in tokens)
// since every request carries it.
import type { Logger } from "pino";
import { Agent, toolSpecsOf, type AgentHooks } from "../../agent/agent.js";
import { buildSystemPrompt } from "../../agent/system-prompt.js";
import { estimateTextTokens } from "../../compaction/index.js";
import type { ModelInfo, Provider, ThinkingLevel } from "../../llm/types.js";
import type { SessionFile } from "../../session/session-file.js";
import { createCodingTools } from "../../tools/index.js";
import type { Tool } from "../../tools/types.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { RequestParts } from "./aside-question.js";

export interface SessionAgentOptions {
  file: SessionFile;
  provider: Provider;
  model: ModelInfo;
  thinkingLevel: ThinkingLevel;
  tools: ToolPolicy;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTurns?: number;
  hooks: AgentHooks;
  /** where a context file left out of the prompt is reported */
  logger: Logger;
  /** the session's MCP servers' tools, asked before each model request */
  moreTools?: () => Promise<readonly Tool[]>;
}

/**
 * The model a session file last chose, by its provider and id, if this daemon can use it; else
 * the default. Neither usable (no key, say) is the default's error: never another model quietly.
 */
export function storedModel(stored: { provider?: string; modelId: string } | undefined, deps: { defaultModel(): ModelInfo; resolveModel(name: string): ModelInfo; logger: Logger }): ModelInfo {
  if (stored === undefined) return deps.defaultModel();
  try {
    return deps.resolveModel(stored.provider ? `${stored.provider}/${stored.modelId}` : stored.modelId);
  } catch (err) {
    // a model this daemon cannot use (another provider's, in a Pi file; a key not set here)
    deps.logger.warn({ model: stored.modelId, provider: stored.provider, reason: (err as Error).message }, "the session's model cannot be used here; using the default");
    return deps.defaultModel();
  }
}

export function buildSessionAgent(o: SessionAgentOptions): { agent: Agent; overheadTokens: number; parts: RequestParts } {
  const tools = createCodingTools();
  const systemPrompt = buildSystemPrompt({
    cwd: o.file.cwd,
    tools,
    deniedPaths: o.tools.deniedPaths,
    systemPrompt: o.systemPrompt,
    appendSystemPrompt: o.appendSystemPrompt,
    onContextFileNote: ({ path, why, cut }) =>
      o.logger.warn({ file: path }, cut ? `context file ${path}: ${why}; only its start is in the system prompt` : `context file ${path} left out of the system prompt: ${why}`),
  });
  const toolSpecs = toolSpecsOf(tools);
  const agent = new Agent({
    session: o.file,
    provider: o.provider,
    model: o.model,
    tools,
    toolSpecs,
    moreTools: o.moreTools,
    systemPrompt,
    thinkingLevel: o.thinkingLevel,
    toolContext: { cwd: o.file.cwd, ...o.tools },
    maxTurns: o.maxTurns,
    hooks: o.hooks,
  });
  const parts: RequestParts = { model: o.model, systemPrompt, tools: toolSpecs, thinkingLevel: o.thinkingLevel };
  return { agent, overheadTokens: Math.ceil(estimateTextTokens(systemPrompt) + estimateTextTokens(JSON.stringify(toolSpecs))), parts };
}

/** Resolves once `count` user messages of the run starting now are stored (or the run ended first). */
export function untilStored(agent: Agent, count: number): Promise<void> {
  let left = count;
  return new Promise<void>((resolve) => {
    const off = agent.on((e) => {
      if ((e.type === "message_end" && --left === 0) || e.type === "agent_end") {
        off();
        resolve();
      }
    });
  });
}
