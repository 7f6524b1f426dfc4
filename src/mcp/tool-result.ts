// An MCP tool's answer as a tool result. Text, images and embedded resources become the result's
// blocks; what the model cannot take (audio, a binary resource) is named in a line of text, never
// dropped without a word. A server's answer is untrusted and may be huge (Codex #14466, OpenCode
// #5360: MCP output flooding the context or cut without saying so): the text is bounded like
// bash's output, the model getting its head and tail and the absolute path of a file in the
// session's temp directory that holds all of it, which its `read` can page through.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ImageContent, TextContent } from "../messages/types.js";
import { MAX_BYTES, MAX_LINES, formatSize, truncateHead, truncateTail } from "../tools/truncate.js";
import type { ToolOutput } from "../tools/types.js";

/** Largest image passed on (its base64): the providers' limit per image. */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** The model gets this much of the head of a cut text and the same of its tail. */
const HALF = { maxBytes: Math.floor(MAX_BYTES / 2), maxLines: Math.floor(MAX_LINES / 2) };

export interface McpResultDetails {
  /** the server's name for it, and the server's (the model's name is the stored toolName) */
  mcp: { server: string; tool: string };
  truncated?: { totalBytes: number; totalLines: number; fullOutputPath?: string };
}

type Block = CallToolResult["content"][number];

function describe(block: Block): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      if (block.data.length <= MAX_IMAGE_BASE64) return { type: "image", data: block.data, mimeType: block.mimeType };
      return { type: "text", text: `[an image (${block.mimeType}, ${formatSize(block.data.length)} as base64) was left out: over the 5 MB a model takes]` };
    case "audio":
      return { type: "text", text: `[audio (${block.mimeType}, ${formatSize(block.data.length)} as base64) the model cannot hear]` };
    case "resource_link":
      return { type: "text", text: `[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]` };
    case "resource": {
      const r = block.resource;
      if ("text" in r) return { type: "text", text: `[resource ${r.uri}]\n${r.text}` };
      if (r.mimeType?.startsWith("image/") && r.blob.length <= MAX_IMAGE_BASE64) return { type: "image", data: r.blob, mimeType: r.mimeType };
      return { type: "text", text: `[binary resource ${r.uri} (${r.mimeType ?? "unknown type"}, ${formatSize(r.blob.length)} as base64)]` };
    }
    default:
      return { type: "text", text: `[a content block of type ${(block as { type?: string }).type ?? "?"} pith does not know]` };
  }
}

/** Writes the full text where the model's read can open it; undefined if it cannot be written. */
function keepFullText(text: string, tempDir: string | undefined): string | undefined {
  const file = join(tempDir ?? tmpdir(), `pith-mcp-${randomUUID()}.txt`);
  try {
    writeFileSync(file, text, { mode: 0o600, flag: "wx" });
    return file;
  } catch {
    return undefined;
  }
}

/** The result's text within the limits: as it is, or its head and tail with a note between. */
function bounded(text: string, tempDir: string | undefined): { text: string; truncated?: McpResultDetails["truncated"] } {
  const whole = truncateHead(text);
  if (!whole.truncated) return { text };
  const head = truncateHead(text, HALF);
  const tail = truncateTail(text, HALF);
  const file = keepFullText(text, tempDir);
  const where = file ? `The full output is in ${file} (read it with offset/limit, or grep it).` : "The full output could not be kept in a file.";
  const note = `\n\n[... output cut: ${formatSize(whole.totalBytes)} in ${whole.totalLines} lines; shown are the first ${head.keptLines} and the last ${tail.keptLines} lines. ${where}]\n\n`;
  return { text: `${head.text}${note}${tail.text}`, truncated: { totalBytes: whole.totalBytes, totalLines: whole.totalLines, fullOutputPath: file } };
}

/**
 * The tool result for an MCP answer. Consecutive text blocks are joined (and bounded as one);
 * `structuredContent` alone (no content) is given as its JSON. `isError` is the caller's to use.
 */
export function toolOutputOf(result: CallToolResult, names: McpResultDetails["mcp"], tempDir: string | undefined): ToolOutput {
  const blocks = result.content.map(describe);
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  const texts = blocks.filter((b): b is TextContent => b.type === "text").map((b) => b.text);
  const images = blocks.filter((b): b is ImageContent => b.type === "image");
  const { text, truncated } = bounded(texts.join("\n"), tempDir);
  const details: McpResultDetails = { mcp: names, ...(truncated ? { truncated } : {}) };
  const content: (TextContent | ImageContent)[] = [];
  if (text.length > 0 || images.length === 0) content.push({ type: "text", text: text.length > 0 ? text : "(no output)" });
  return { content: [...content, ...images], details };
}
