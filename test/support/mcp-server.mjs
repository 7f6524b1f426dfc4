#!/usr/bin/env node
// The stdio MCP server the tests and the bench start (`node test/support/mcp-server.mjs [flags]`), written
// with the official SDK's server package. Plain JavaScript, no tsx: it starts in well under a second.
// stdout carries the protocol only; anything said goes to stderr.
//
// Tools (the same over HTTP, test/support/mcp-http-server.ts; defined in mcp-tools.mjs). "ro" =
// annotated `readOnlyHint: true` (unless --no-annotations); the others carry no annotations.
//   echo {text}           ro  → text "echo: <text>"
//   write_note {name,text}    → writes <text> to $NOTES_DIR/<name> (a name with "/" or ".." is refused
//                               with isError), answers "wrote <name>"
//   read_file {path}      ro  → the file's text (a path relative to the server's cwd, or absolute); a
//                               file it cannot read is a tool error with the reason
//   big {bytes}           ro  → one text block of exactly <bytes> ASCII bytes: 64-byte numbered lines
//                               "line 000001 xxx…\n", the first starting "BIG-START ", the last ending
//                               "BIG-END" (no newline); bytes < BIG_MIN_BYTES (29) is a tool error
//   hang {}               ro  → never answers; on the request's cancellation (notifications/cancelled)
//                               appends "cancelled <requestId>\n" to $CANCEL_LOG (when set)
//   crash {}                  → the process exits with code 3 during the call (no answer)
//   fail {}                   → isError: true, text "the tool failed on purpose"
//   image {}              ro  → [text "a red pixel", image (1x1 PNG, base64) mimeType "image/png"]
//   resource {}           ro  → [{type:"resource", resource:{uri:"note://x", mimeType:"text/plain", text:"resource text"}}]
//   progress {steps,ms}   ro  → every <ms> ms, <steps> times, notifications/progress {progress: i, total:
//                               steps} on the call's progressToken (if the client gave one); then
//                               "done after <steps> steps"
//   add_tool {}               → registers `late {}` (ro, answers "late tool"; not subject to --only),
//                               sends notifications/tools/list_changed, answers "added"
//   pid {}                ro  → the server's process.pid, as text
// Flags:
//   --pid-file FILE    write process.pid and a newline to FILE at start (before --slow-start's wait)
//   --ignore-end       ignore SIGTERM, SIGINT, SIGHUP and the end of stdin: only SIGKILL ends it
//   --fail-start       print "cannot open the database: /nope" to stderr and exit 1, before connecting
//   --slow-start MS    wait MS milliseconds before connecting the transport
//   --only a,b         register only these tools
//   --no-annotations   register every tool without annotations
// Environment: NOTES_DIR (write_note), CANCEL_LOG (hang).
// Both protocol eras are served (serveStdio): the 2025 `initialize` handshake, which is the client's
// default, and a 2026-07-28 `server/discover` opening.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { makeToolServer } from "./mcp-tools.mjs";

const { values } = parseArgs({
  options: {
    "pid-file": { type: "string" },
    "ignore-end": { type: "boolean", default: false },
    "fail-start": { type: "boolean", default: false },
    "slow-start": { type: "string" },
    only: { type: "string" },
    "no-annotations": { type: "boolean", default: false },
  },
});

if (values["pid-file"]) writeFileSync(values["pid-file"], `${process.pid}\n`);
if (values["fail-start"]) {
  process.stderr.write("cannot open the database: /nope\n");
  process.exit(1);
}
if (values["ignore-end"]) {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => {});
  // the transport closes at the end of stdin; this timer keeps the process alive after it
  setInterval(() => {}, 1 << 30);
}

const shared = { lateAdded: false };
const factory = () =>
  makeToolServer({
    only: values.only?.split(",").map((s) => s.trim()),
    annotations: !values["no-annotations"],
    notesDir: process.env.NOTES_DIR,
    cancelLog: process.env.CANCEL_LOG,
    onCrash: () => process.exit(3),
    shared,
  });

const slow = Number(values["slow-start"] ?? 0);
if (slow > 0) await new Promise((resolve) => setTimeout(resolve, slow));
serveStdio(factory, { onerror: (err) => process.stderr.write(`mcp-server: ${err.message}\n`) });
