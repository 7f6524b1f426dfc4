// The tools of the tests' MCP servers, defined once for the stdio server (mcp-server.mjs) and the
// streamable-HTTP one (mcp-http-server.ts): each builds its McpServer instances from makeToolServer.
// Plain ESM JavaScript so the stdio server starts without tsx; its types are in mcp-tools.d.mts.
// The API each tool offers is written up in mcp-server.mjs's header.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

// a 1x1 red PNG (8-bit RGB)
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

const READ_ONLY = { readOnlyHint: true };
const BIG_LINE = 64; // bytes per numbered line, newline included
const BIG_HEAD = "BIG-START ";
const BIG_TAIL = "BIG-END";

/** The smallest `bytes` big accepts: one line holding both marks and its number. */
export const BIG_MIN_BYTES = BIG_HEAD.length + "line 000001 ".length + BIG_TAIL.length;

/** Exactly `bytes` ASCII bytes of numbered lines, the first starting BIG-START, the last ending BIG-END. */
export function bigText(bytes) {
  if (!Number.isInteger(bytes) || bytes < BIG_MIN_BYTES) throw new RangeError(`bytes must be an integer of at least ${BIG_MIN_BYTES}`);
  const parts = [];
  let left = bytes;
  for (let n = 1; left > 0; n++) {
    const prefix = `${n === 1 ? BIG_HEAD : ""}line ${String(n).padStart(6, "0")} `;
    // a full line only while what stays after it still holds a whole last line
    if (left - BIG_LINE >= BIG_LINE + BIG_HEAD.length) {
      parts.push(prefix + "x".repeat(BIG_LINE - prefix.length - 1) + "\n");
      left -= BIG_LINE;
    } else {
      parts.push(prefix + "x".repeat(left - prefix.length - BIG_TAIL.length) + BIG_TAIL);
      left = 0;
    }
  }
  return parts.join("");
}

const text = (t) => ({ content: [{ type: "text", text: t }] });

/**
 * One McpServer with the test tools. `shared` outlives the instance: the HTTP server's modern era
 * builds an instance per request, and `late` must stay once add_tool has added it.
 */
export function makeToolServer(options) {
  const { only, annotations = true, notesDir, cancelLog, onCrash, onToolsChanged, shared = { lateAdded: false } } = options;
  const server = new McpServer({ name: "pith-test-tools", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  const wanted = (name) => !only || only.includes(name);
  const tool = (name, description, inputSchema, readOnly, handler) => {
    if (!wanted(name)) return;
    const config = { description, inputSchema };
    if (annotations && readOnly) config.annotations = READ_ONLY;
    server.registerTool(name, config, handler);
  };
  // not subject to `only`: it exists once add_tool, which is, added it
  const addLate = () => {
    const config = { description: "a tool add_tool adds", inputSchema: z.object({}) };
    if (annotations) config.annotations = READ_ONLY;
    server.registerTool("late", config, () => text("late tool"));
  };

  tool("echo", "answers its text back", z.object({ text: z.string() }), true, ({ text: t }) => text(`echo: ${t}`));
  tool("write_note", "writes a note file", z.object({ name: z.string(), text: z.string() }), false, ({ name, text: body }) => {
    if (!notesDir) return { isError: true, content: [{ type: "text", text: "NOTES_DIR is not set" }] };
    if (name === "" || name.includes("/") || name.includes("..")) {
      return { isError: true, content: [{ type: "text", text: `refused note name: ${name}` }] };
    }
    writeFileSync(join(notesDir, name), body);
    return text(`wrote ${name}`);
  });
  // the MCP twin of the built-in read, for the bench: the same work over the protocol
  tool("read_file", "answers a file's text", z.object({ path: z.string() }), true, ({ path }) => {
    try {
      return text(readFileSync(path, "utf8"));
    } catch (err) {
      return { isError: true, content: [{ type: "text", text: String(err.message) }] };
    }
  });
  tool("big", "answers exactly `bytes` bytes of numbered lines", z.object({ bytes: z.number() }), true, ({ bytes }) => text(bigText(bytes)));
  tool("hang", "never answers; logs its cancellation", z.object({}), true, (_args, ctx) => {
    const { signal, id } = ctx.mcpReq;
    return new Promise((_resolve, reject) => {
      const cancelled = () => {
        if (cancelLog) appendFileSync(cancelLog, `cancelled ${id}\n`);
        reject(new Error("cancelled"));
      };
      if (signal.aborted) cancelled();
      else signal.addEventListener("abort", cancelled, { once: true });
    });
  });
  tool("crash", "the server dies during the call", z.object({}), false, () => {
    onCrash();
    return new Promise(() => {});
  });
  tool("fail", "a tool error", z.object({}), false, () => ({
    isError: true,
    content: [{ type: "text", text: "the tool failed on purpose" }],
  }));
  tool("image", "a text block and a 1x1 PNG", z.object({}), true, () => ({
    content: [
      { type: "text", text: "a red pixel" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
    ],
  }));
  tool("resource", "an embedded resource", z.object({}), true, () => ({
    content: [{ type: "resource", resource: { uri: "note://x", mimeType: "text/plain", text: "resource text" } }],
  }));
  tool("progress", "progress notifications, then an answer", z.object({ steps: z.number(), ms: z.number() }), true, async ({ steps, ms }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        ctx.mcpReq.signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("cancelled"))), { once: true });
      });
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
      }
    }
    return text(`done after ${steps} steps`);
  });
  tool("add_tool", "adds the tool `late`", z.object({}), false, () => {
    if (!shared.lateAdded) {
      shared.lateAdded = true;
      addLate(); // registering on a connected server sends notifications/tools/list_changed
    } else {
      server.sendToolListChanged();
    }
    onToolsChanged?.();
    return text("added");
  });
  tool("pid", "the server's process id", z.object({}), true, () => text(String(process.pid)));
  if (shared.lateAdded) addLate();
  return server;
}
