// The small pieces every ACP mapping shares: pith's content blocks as ACP content blocks, message
// chunks, fenced text, token counts written for people, and what the client said it can show.
// ACP's schema strips keys it does not know (a pith text block's textSignature would be dropped
// silently), so blocks are rebuilt field by field rather than passed through.
import type { ClientCapabilities, ContentBlock, ContentChunk, SessionUpdate } from "@agentclientprotocol/sdk";

/** One SessionUpdate variant, by its tag. */
export type UpdateOf<K extends SessionUpdate["sessionUpdate"]> = Extract<SessionUpdate, { sessionUpdate: K }>;

type ChunkKind = "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk";

/** What the client advertised beyond the baseline (its `session` capabilities). */
export interface ClientFeatures {
  /** `session.compaction`: compaction_update / compaction_summary_chunk may be sent */
  compaction: boolean;
  /** `session.notices`: notice updates may be sent */
  notices: boolean;
}

/** The features from `initialize`'s clientCapabilities (omitted or null: unsupported; `{}`: supported). */
export function clientFeatures(capabilities: ClientCapabilities | null | undefined): ClientFeatures {
  const session = capabilities?.session;
  return {
    compaction: session?.compaction !== undefined && session?.compaction !== null,
    notices: session?.notices !== undefined && session?.notices !== null,
  };
}

/** A text or image block of a message or tool result; anything else (a newer writer's block) is left out. */
export function contentBlock(block: unknown): ContentBlock | undefined {
  if (!block || typeof block !== "object") return undefined;
  const b = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  if (b.type === "text" && typeof b.text === "string") return { type: "text", text: b.text };
  if (b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string") return { type: "image", data: b.data, mimeType: b.mimeType };
  return undefined;
}

/** A message's content (a string, or blocks) as ACP content blocks; empty text is left out. */
export function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const raw of content) {
    const block = contentBlock(raw);
    if (block && !(block.type === "text" && block.text.length === 0)) out.push(block);
  }
  return out;
}

/** A user / agent / thought chunk; messageId ties the chunks of one message together. */
export function chunk<K extends ChunkKind>(kind: K, content: ContentBlock, messageId?: string): UpdateOf<K> {
  const update: ContentChunk & { sessionUpdate: ChunkKind } = { sessionUpdate: kind, content };
  if (messageId !== undefined) update.messageId = messageId;
  return update as UpdateOf<K>;
}

export function textChunk<K extends ChunkKind>(kind: K, text: string, messageId?: string): UpdateOf<K> {
  return chunk(kind, { type: "text", text }, messageId);
}

/**
 * A line pith adds to the conversation (a compaction, a retry): a message of its own, set apart by
 * blank lines, since a client that ignores messageId appends it to the agent's last message.
 */
export function noteChunk(text: string, messageId: string): UpdateOf<"agent_message_chunk"> {
  return textChunk("agent_message_chunk", `\n\n${text}\n\n`, messageId);
}

/** `text` in a fenced code block whose fence no backtick run inside it can close. */
export function fenced(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** `text` as inline code, with enough backticks around it (and spaces where it starts or ends with one). */
export function inlineCode(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** The first line of `text`, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 80): string {
  const lines = text.trim().split(/\r?\n/);
  let first = lines[0] ?? "";
  const more = lines.length > 1;
  if (first.length > max) first = `${first.slice(0, max - 1)}…`;
  else if (more) first = `${first} …`;
  return first;
}

const counts = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A token count as people read it: 41,200. */
export function tokens(n: number): string {
  return counts.format(Math.round(n));
}

/**
 * Something the user should know, as a notice when the client shows them (`session.notices`),
 * else as a note in the conversation (ACP's advice for clients without notices).
 */
export function noticeOrNote(
  features: Pick<ClientFeatures, "notices">,
  severity: "info" | "warning" | "error",
  title: string,
  description: string | undefined,
  messageId: string,
): UpdateOf<"notice"> | UpdateOf<"agent_message_chunk"> {
  if (features.notices) {
    const notice: UpdateOf<"notice"> = { sessionUpdate: "notice", severity, title };
    if (description !== undefined && description.length > 0) notice.description = description;
    return notice;
  }
  return noteChunk(description ? `${title}: ${description}` : title, messageId);
}
