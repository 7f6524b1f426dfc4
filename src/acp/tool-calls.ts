// A pith tool call as an ACP client shows it: its kind (the icon), a title a person can read at
// a glance, the files it touches (absolute, for the editor's follow-along), the arguments as
// given, and for write / edit the change it proposes as a diff (shown while permission is asked).
// A command the title cannot show whole (more than one line, or longer than the title's 80
// characters) is in the content too, whole, and the title says so: a permission question must
// show what will run, and a model could put the harmful part past the title's cut. In both, the
// controls that would hide or reorder what an editor shows (a bidi override, a lone CR, C1) are
// written out visibly (src/log/terminal-safe.ts), and such a command counts as cut.
// The arguments come from the model and, in replayed files, from other writers: nothing about
// their shape is assumed, a missing or odd field only makes the description plainer. An MCP
// server's tool is titled by its own name and its server's (mcp-tool-calls.ts).
import type { ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";
import { isAbsolute, relative, resolve } from "node:path";
import { terminalSafe } from "../log/terminal-safe.js";
import { expandHome } from "../tools/paths.js";
import { fenced, inlineCode, oneLine, type UpdateOf } from "./content.js";
import { mcpToolRef, mcpToolTitle, type McpToolRef } from "./mcp-tool-calls.js";

/** What an ACP client is told about a call before it runs. */
export interface ToolCallInfo {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  /** the proposed change of write / edit, as diffs; a command the title cuts, whole; else empty */
  content: ToolCallContent[];
}

type Args = Record<string, unknown>;

const KINDS: Readonly<Record<string, ToolKind>> = {
  read: "read",
  ls: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  grep: "search",
  find: "search",
};

export function toolKind(name: string): ToolKind {
  return Object.prototype.hasOwnProperty.call(KINDS, name) ? KINDS[name] : "other";
}

/** The arguments as an object (a malformed call's arguments may be anything). */
export function argsOf(args: unknown): Args {
  return args && typeof args === "object" && !Array.isArray(args) ? (args as Args) : {};
}

function str(args: Args, key: string): string | undefined {
  const v = args[key];
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

function lineNumber(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 0xffffffff ? v : undefined;
}

/** `p` resolved as the tools resolve it: `~` is the home directory, relative paths start at cwd. */
export function absolutePath(p: string, cwd: string): string {
  return resolve(cwd, expandHome(p));
}

/** A path as a title shows it: relative to cwd when it lies inside, else as given. */
function shownPath(p: string, cwd: string): string {
  if (!isAbsolute(p)) return p;
  const rel = relative(cwd, p);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? p : rel;
}

function readRange(args: Args): string {
  const offset = lineNumber(args.offset);
  const limit = lineNumber(args.limit);
  if (offset !== undefined && limit !== undefined) return ` (lines ${offset}-${offset + limit - 1})`;
  if (offset !== undefined) return ` (from line ${offset})`;
  if (limit !== undefined) return ` (lines 1-${limit})`;
  return "";
}

/** The command as a title shows it: its first line, cut to 80 characters, controls made visible. */
function commandTitle(command: string): string {
  return terminalSafe(oneLine(command));
}

/** Whether the title leaves part of the command out (or shows it otherwise than it is). */
function titleCuts(command: string): boolean {
  return commandTitle(command) !== command.trim();
}

/** bash's command as content, whole, when the title cannot show all of it. */
function commandContent(name: string, rawArgs: unknown): ToolCallContent[] {
  const command = name === "bash" ? str(argsOf(rawArgs), "command") : undefined;
  if (command === undefined || !titleCuts(command)) return [];
  return [{ type: "content", content: { type: "text", text: fenced(terminalSafe(command)) } }];
}

export function toolTitle(name: string, rawArgs: unknown, cwd: string): string {
  const args = argsOf(rawArgs);
  const path = str(args, "path");
  const shown = path === undefined ? undefined : shownPath(path, cwd);
  const where = shown === undefined ? "" : ` in ${shown}`;
  switch (name) {
    case "read":
      return shown === undefined ? "Read a file" : `Read ${shown}${readRange(args)}`;
    case "write":
      return shown === undefined ? "Write a file" : `Write ${shown}`;
    case "edit":
      return shown === undefined ? "Edit a file" : `Edit ${shown}`;
    case "bash": {
      const command = str(args, "command");
      if (command === undefined) return "Run a command";
      return `Run ${inlineCode(commandTitle(command))}${titleCuts(command) ? " (full command below)" : ""}`;
    }
    case "grep": {
      const pattern = str(args, "pattern");
      const glob = str(args, "glob");
      const what = pattern === undefined ? "Search" : `Search for ${inlineCode(oneLine(pattern, 60))}`;
      return `${what}${where}${glob === undefined ? "" : ` (${glob})`}`;
    }
    case "find": {
      const pattern = str(args, "pattern");
      return `${pattern === undefined ? "Find files" : `Find ${inlineCode(oneLine(pattern, 60))}`}${where}`;
    }
    case "ls":
      return `List ${shown ?? "."}`;
    default:
      return name.length > 0 ? name : "Tool call";
  }
}

/** The files a call touches, absolute, with the line where it is known. */
export function toolLocations(name: string, rawArgs: unknown, cwd: string): ToolCallLocation[] {
  const args = argsOf(rawArgs);
  const path = str(args, "path");
  if (path === undefined || name === "bash") return [];
  const location: ToolCallLocation = { path: absolutePath(path, cwd) };
  if (name === "read") {
    const line = lineNumber(args.offset);
    if (line !== undefined) location.line = line;
  }
  return [location];
}

/** One replacement of an edit call: the single oldText/newText pair, or each of `edits`. */
function editPairs(rawArgs: unknown): { oldText: string; newText: string }[] {
  const args = argsOf(rawArgs);
  const pairs: { oldText: string; newText: string }[] = [];
  const add = (v: unknown) => {
    const e = argsOf(v);
    if (typeof e.oldText === "string" && typeof e.newText === "string") pairs.push({ oldText: e.oldText, newText: e.newText });
  };
  add(args);
  if (Array.isArray(args.edits)) for (const e of args.edits) add(e);
  return pairs;
}

/**
 * The change write / edit makes, as diffs. edit: each replaced piece (old -> new), not the whole
 * file, which is all the arguments tell. write: the new content; ACP marks a new file by leaving
 * oldText out, and without the file's earlier content (pass it as `before`) that is what an
 * overwrite looks like too.
 */
export function proposedDiffs(name: string, rawArgs: unknown, cwd: string, before?: string | null): ToolCallContent[] {
  const args = argsOf(rawArgs);
  const path = str(args, "path");
  if (path === undefined) return [];
  const absolute = absolutePath(path, cwd);
  if (name === "write" && typeof args.content === "string") {
    const diff: ToolCallContent = { type: "diff", path: absolute, newText: args.content };
    if (typeof before === "string") diff.oldText = before;
    return [diff];
  }
  if (name === "edit") return editPairs(args).map((p) => ({ type: "diff", path: absolute, oldText: p.oldText, newText: p.newText }));
  return [];
}

/**
 * `mcp`: the MCP tool behind `name` as the session's servers list it (mcp-tool-calls.ts); without
 * it, a name of the form mcp__<server>__<tool> is read as one.
 */
export function toolCallInfo(name: string, args: unknown, cwd: string, mcp: McpToolRef | undefined = mcpToolRef(name)): ToolCallInfo {
  if (mcp) return { title: mcpToolTitle(mcp), kind: mcp.readOnly ? "read" : "other", locations: [], content: [] };
  const content = [...proposedDiffs(name, args, cwd), ...commandContent(name, args)];
  return { title: toolTitle(name, args, cwd), kind: toolKind(name), locations: toolLocations(name, args, cwd), content };
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** An edit replacement with its texts (carried by the diff) replaced by their sizes in bytes. */
function withoutEditTexts(e: Args): Args {
  if (typeof e.oldText !== "string" || typeof e.newText !== "string") return e;
  const { oldText, newText, ...rest } = e;
  return { ...rest, oldTextBytes: utf8Bytes(oldText), newTextBytes: utf8Bytes(newText) };
}

/**
 * The arguments as a tool_call's rawInput shows them. A write's content and an edit's texts go
 * once, in the diff: here they are replaced by their sizes in bytes (`contentBytes`,
 * `oldTextBytes`, `newTextBytes`), so a 39 KB write is not one 80 KB line that a client's line
 * reader (64 KiB in several SDKs) cannot take. Texts no diff carries (no path) stay as given.
 */
export function shownInput(name: string, rawArgs: unknown, cwd: string): unknown {
  if (name !== "write" && name !== "edit") return rawArgs;
  if (proposedDiffs(name, rawArgs, cwd).length === 0) return rawArgs;
  const args = argsOf(rawArgs);
  if (name === "write") {
    const { content, ...rest } = args;
    return typeof content === "string" ? { ...rest, contentBytes: utf8Bytes(content) } : args;
  }
  const shown = withoutEditTexts(args);
  return Array.isArray(args.edits) ? { ...shown, edits: args.edits.map((e) => (e && typeof e === "object" && !Array.isArray(e) ? withoutEditTexts(e as Args) : e)) } : shown;
}

/** The `tool_call` update announcing a call (rawInput: the arguments as the model gave them, less the texts its diff carries). */
export function toolCallStart(toolCallId: string, name: string, args: unknown, cwd: string, status: ToolCallStatus = "pending", mcp?: McpToolRef): UpdateOf<"tool_call"> {
  const info = toolCallInfo(name, args, cwd, mcp ?? mcpToolRef(name));
  const update: UpdateOf<"tool_call"> = { sessionUpdate: "tool_call", toolCallId, title: info.title, kind: info.kind, status, rawInput: shownInput(name, args, cwd) ?? {} };
  if (name.length > 0) update.name = name;
  if (info.locations.length > 0) update.locations = info.locations;
  if (info.content.length > 0) update.content = info.content;
  return update;
}

/** A call's status alone: in_progress once it runs (after permission, when one was asked). */
export function toolStatusUpdate(toolCallId: string, status: ToolCallStatus): UpdateOf<"tool_call_update"> {
  return { sessionUpdate: "tool_call_update", toolCallId, status };
}
