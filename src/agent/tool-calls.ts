// The tools' side of a run: what the model is told about them, and running the calls it made,
// in order, each result stored before it is announced. A call that will never run (an abort,
// a steer that arrived) still gets a result, so no call is left unanswered. Kept apart from
// the loop, which only hands over a turn's calls.
import type { ToolCall, ToolResultMessage } from "../messages/types.js";
import type { ToolSpec } from "../llm/types.js";
import type { Tool, ToolOutput } from "../tools/types.js";
import type { RunScope } from "./agent-options.js";

/** What the model is told about the tools. */
export function toolSpecsOf(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `calls` in order; once the run is aborted or `steerWaiting()`, the rest are skipped. */
export async function runTools(scope: RunScope, calls: ToolCall[], steerWaiting: () => boolean): Promise<void> {
  const { emit, runId, signal } = scope;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    if (signal.aborted || steerWaiting()) {
      skipCalls(scope, calls.slice(i), signal.aborted ? "aborted" : "skipped");
      return;
    }
    emit({ type: "tool_execution_start", runId, toolCallId: call.id, toolName: call.name, args: call.arguments });
    const { output, isError } = await execute(scope, call);
    storeResult(scope, call, output, isError);
  }
}

const ABORTED_BEFORE = "Aborted by the user before this tool ran.";

/**
 * The details of a result an abort wrote (the call was stopped or never ran): the stored turn
 * ended there, so a replay (ACP's session/load) can show it as interrupted. Pi ignores them.
 */
function abortedDetails(): { aborted: true } {
  return { aborted: true };
}

/** Tool calls that will never run get an error result, so no call is left unanswered. */
export function skipCalls(scope: RunScope, calls: readonly ToolCall[], why: "aborted" | "skipped"): void {
  const text = why === "aborted" ? ABORTED_BEFORE : "Skipped: the user sent a new message before this tool ran.";
  for (const call of calls) {
    scope.emit({ type: "tool_execution_start", runId: scope.runId, toolCallId: call.id, toolName: call.name, args: call.arguments });
    storeResult(scope, call, { content: [{ type: "text", text }], details: why === "aborted" ? abortedDetails() : undefined }, true);
  }
}

function storeResult(scope: RunScope, call: ToolCall, output: ToolOutput, isError: boolean): ToolResultMessage {
  const result: ToolResultMessage = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: output.content, details: output.details, isError, timestamp: Date.now() };
  const entry = scope.options.session.appendMessage(result);
  scope.emit({ type: "tool_execution_end", runId: scope.runId, toolCallId: call.id, toolName: call.name, result, isError, entryId: entry.id });
  return result;
}

async function execute(scope: RunScope, call: ToolCall): Promise<{ output: ToolOutput; isError: boolean }> {
  const { options, emit, runId, signal, tools } = scope;
  const fail = (text: string, details?: unknown) => ({ output: { content: [{ type: "text" as const, text }], details }, isError: true });
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return fail(`Unknown tool "${call.name}". Available tools: ${tools.map((t) => t.name).join(", ")}.`);
  try {
    const params = tool.parse(call.arguments ?? {});
    if (options.hooks?.canRunTool) {
      const verdict = await options.hooks.canRunTool(call, { signal, effects: tool.effects, runId });
      // aborted while the user was asked (or by cancelling the question): stored as an abort, not a denial
      if (!verdict.allow && signal.aborted) return fail(ABORTED_BEFORE, abortedDetails());
      if (!verdict.allow) return fail(`Not permitted: ${verdict.reason}`);
    }
    const output = await tool.execute(params, {
      ...options.toolContext,
      signal,
      onUpdate: (partial) => emit({ type: "tool_execution_update", runId, toolCallId: call.id, toolName: call.name, partial }),
    });
    return { output, isError: false };
  } catch (err) {
    // keep what the tool says (bash includes the output it had so far)
    if (signal.aborted) return fail(`Aborted by the user while ${call.name} was running. ${errorText(err)}`.trim(), abortedDetails());
    return fail(errorText(err), (err as { details?: unknown }).details);
  }
}
