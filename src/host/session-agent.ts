// The agent a live session runs: its tools, the system prompt for the session's directory, the
// model and thinking level in effect, and the run policy's hooks. Rebuilt when the model or the
// thinking level changes; the session keeps the overhead (prompt and tool definitions, in tokens)
// since every request carries it.
import type { Logger } from "pino";
import { Agent, toolSpecsOf, type AgentHooks } from "../agent/agent.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { estimateTextTokens } from "../compaction/index.js";
import type { ModelInfo, Provider, ThinkingLevel } from "../llm/types.js";
import type { SessionFile } from "../session/session-file.js";
import { createCodingTools } from "../tools/index.js";
import type { ToolPolicy } from "./tool-policy.js";

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
}

/** The model a session file last chose, if this daemon knows it; else the default. */
export function storedModel(modelId: string | undefined, deps: { defaultModel: ModelInfo; resolveModel(id: string): ModelInfo; logger: Logger }): ModelInfo {
  if (modelId === undefined) return deps.defaultModel;
  try {
    return deps.resolveModel(modelId);
  } catch {
    // a model this daemon does not know (another provider's, in a Pi file): go on with the default
    deps.logger.warn({ model: modelId }, "the session's model is unknown here; using the default");
    return deps.defaultModel;
  }
}

export function buildSessionAgent(o: SessionAgentOptions): { agent: Agent; overheadTokens: number } {
  const tools = createCodingTools();
  const systemPrompt = buildSystemPrompt({ cwd: o.file.cwd, tools, deniedPaths: o.tools.deniedPaths, systemPrompt: o.systemPrompt, appendSystemPrompt: o.appendSystemPrompt });
  const toolSpecs = toolSpecsOf(tools);
  const agent = new Agent({
    session: o.file,
    provider: o.provider,
    model: o.model,
    tools,
    toolSpecs,
    systemPrompt,
    thinkingLevel: o.thinkingLevel,
    toolContext: { cwd: o.file.cwd, ...o.tools },
    maxTurns: o.maxTurns,
    hooks: o.hooks,
  });
  return { agent, overheadTokens: Math.ceil(estimateTextTokens(systemPrompt) + estimateTextTokens(JSON.stringify(toolSpecs))) };
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
