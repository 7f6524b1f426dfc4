// An ACP prompt (content blocks) as the prompt pith stores: text, plus images. Files the editor
// attaches are named with their absolute path (a resource_link: the model reads it with the read
// tool, so a huge file costs nothing until asked for) or carried inline (an embedded resource,
// fenced with its path). Audio and binary resources are refused: pith advertises neither.
import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import type { ImageContent } from "../messages/types.js";

export class UnsupportedContent extends Error {}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A file: URI (or a plain path) as a path; anything else stays a URI. */
function pathOf(uri: string): string {
  if (uri.startsWith("file:")) {
    try {
      return fileURLToPath(uri);
    } catch {
      return uri;
    }
  }
  return uri;
}

export function promptFromBlocks(blocks: readonly acp.ContentBlock[]): { text: string; images: ImageContent[] } {
  const parts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[Attached file: ${pathOf(block.uri)}${block.name && block.name !== pathOf(block.uri) ? ` (${block.name})` : ""}. Read it with the read tool if you need its contents.]`);
        break;
      case "resource": {
        const r = block.resource;
        if (!("text" in r)) throw new UnsupportedContent(`binary resource ${r.uri} is not supported (only text resources)`);
        parts.push(`<file path="${pathOf(r.uri)}">\n${r.text}\n</file>`);
        break;
      }
      case "image":
        if (!IMAGE_TYPES.has(block.mimeType)) throw new UnsupportedContent(`image type ${block.mimeType} is not supported (png, jpeg, gif, webp)`);
        images.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      default:
        throw new UnsupportedContent(`content of type ${(block as { type: string }).type} is not supported`);
    }
  }
  return { text: parts.join("\n\n"), images };
}
