// Messages that carry checksums of their own text, so a test can tell an intact entry from a
// damaged one after a crash. The child appender-child.mjs writes the same format:
//   content[0].text = `<payload>\nsha256:<h = hex sha256 of payload>`
//   content[1].text = `<tag>\nsha256:<hex sha256 of "<h>\n<tag>">` (a tag has no newline)
// The payload block of a big message is built once and reused, so a writer keeps no new copy of
// it per entry; the tag block binds the tag to that payload.
import { createHash } from "node:crypto";
import type { UserMessage } from "../../src/messages/types.js";
import type { SessionEntry } from "../../src/session/index.js";

const SEAL = "\nsha256:";

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function sealedMessage(tag: string, payload: string): UserMessage {
  const h = sha256(payload);
  return {
    role: "user",
    content: [
      { type: "text", text: `${payload}${SEAL}${h}` },
      { type: "text", text: `${tag}${SEAL}${sha256(`${h}\n${tag}`)}` },
    ],
    timestamp: Date.now(),
  };
}

function unseal(text: string, what: string): { body: string; hash: string } {
  const at = text.lastIndexOf(SEAL);
  if (at < 0) throw new Error(`${what} has no checksum`);
  return { body: text.slice(0, at), hash: text.slice(at + SEAL.length) };
}

/** The tag of an intact sealed message entry; throws, saying why, for anything else. */
export function checkSealedEntry(entry: SessionEntry | undefined, id = entry?.id): string {
  if (!entry) throw new Error(`entry ${id} is missing`);
  if (entry.type !== "message") throw new Error(`entry ${id} is a ${entry.type}, not a message`);
  const m = entry.message as UserMessage;
  const blocks = Array.isArray(m.content) ? m.content : [];
  if (m.role !== "user" || blocks.length !== 2 || blocks.some((b) => b.type !== "text")) throw new Error(`entry ${id} is not a sealed user message`);
  const payload = unseal((blocks[0] as { text: string }).text, `entry ${id}`);
  if (sha256(payload.body) !== payload.hash) throw new Error(`entry ${id}: payload checksum mismatch (content damaged)`);
  const tag = unseal((blocks[1] as { text: string }).text, `entry ${id}`);
  if (sha256(`${payload.hash}\n${tag.body}`) !== tag.hash) throw new Error(`entry ${id}: tag checksum mismatch (content damaged)`);
  return tag.body;
}
