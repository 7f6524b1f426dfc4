// What the model sees of the messages that are neither its own replies nor tool results:
// summaries, the user's own shell runs and extension messages all reach it as user content.
// Shared by every provider's conversion, so a session reads the same on any model.
import type { AgentMessage, BashExecutionMessage, ImageContent, TextContent } from "../messages/types.js";

const SUMMARY_INTRO = "Earlier parts of this session were summarized; the summary follows.";
const BRANCH_INTRO = "The user came back from another branch of this session; here is what happened there.";

function bashText(m: BashExecutionMessage): string {
  let text = `The user ran \`${m.command}\` in the shell`;
  text += m.output ? `:\n\`\`\`\n${m.output}\n\`\`\`` : " (no output).";
  if (m.cancelled) text += "\n(The command was cancelled.)";
  else if (m.exitCode !== undefined && m.exitCode !== null && m.exitCode !== 0) text += `\nExit code: ${m.exitCode}`;
  if (m.truncated && m.fullOutputPath) text += `\n(Output truncated; the full output is in ${m.fullOutputPath})`;
  return text;
}

function summaryText(summary: string): string {
  return `${SUMMARY_INTRO}\n\n<summary>\n${summary}\n</summary>`;
}

function branchSummaryText(summary: string): string {
  return `${BRANCH_INTRO}\n\n<summary>\n${summary}\n</summary>`;
}

/**
 * The user-side content of a message, empty blocks left out; undefined for assistant messages
 * and tool results (each API places those its own way) and for what the model must not see.
 */
export function userSideContent(m: AgentMessage): (TextContent | ImageContent)[] | undefined {
  switch (m.role) {
    case "user":
    case "custom":
      if (typeof m.content === "string") return m.content ? [{ type: "text", text: m.content }] : [];
      return m.content.filter((b) => b.type === "image" || (b.type === "text" && b.text));
    case "bashExecution":
      return m.excludeFromContext ? undefined : [{ type: "text", text: bashText(m) }];
    case "compactionSummary":
      return [{ type: "text", text: summaryText(m.summary) }];
    case "branchSummary":
      return [{ type: "text", text: branchSummaryText(m.summary) }];
    default:
      return undefined;
  }
}
