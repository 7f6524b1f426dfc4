// The names the model sees for MCP tools: mcp__<server>__<tool>, as Codex and Claude Code name
// them, each part reduced to what every provider accepts in a tool name (A-Z a-z 0-9 _ -) and the
// whole within 64 characters (OpenAI's and Anthropic's limit). Reducing can make two names alike
// ("my.db" and "my_db", or two long names sharing their first 60 characters); the later one then
// gets a short hash of its full original name, so no tool silently replaces another.
import { createHash } from "node:crypto";

const MAX_NAME = 64;
const PREFIX = "mcp__";

function reduce(part: string): string {
  const r = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return r.length > 0 ? r : "_";
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 6);
}

function fit(server: string, tool: string, tag = ""): string {
  const room = MAX_NAME - PREFIX.length - 2 - tag.length;
  // the server's part takes what the tool's leaves, but both long: half each, so tools stay apart
  const s = server.slice(0, Math.min(server.length, Math.max(Math.floor(room / 2), room - tool.length)));
  const t = tool.slice(0, room - s.length);
  return `${PREFIX}${s}__${t}${tag}`;
}

/**
 * The model's name for `tool` of `server`, unique among `taken` (which it is added to). The same
 * inputs in the same order give the same names, so a session's tools keep their names across a
 * restart of their server.
 */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  let name = fit(reduce(server), reduce(tool));
  if (taken.has(name)) {
    const tag = `_${hash(`${server}\u0000${tool}`)}`;
    name = fit(reduce(server), reduce(tool), tag);
    for (let n = 2; taken.has(name); n++) name = fit(reduce(server), reduce(tool), `${tag}${n}`);
  }
  taken.add(name);
  return name;
}
