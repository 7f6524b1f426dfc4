// Loads a session file one way and prints its memory use as one JSON line. Run in a fresh
// process per mode (by store.bench.ts) so that each figure is that loader's own peak.
//   node --import tsx bench/store-memory-child.ts <idle|baseline|pith> <file>
import { readFileSync } from "node:fs";
import { SessionFile } from "../src/session/session-file.js";
import { collectGarbage } from "./util.js";

const [mode, file] = process.argv.slice(2);
let keep: unknown; // held until the figures are taken, as a real caller would hold it
let detail = 0;

if (mode === "baseline") {
  const entries: unknown[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) if (line) entries.push(JSON.parse(line));
  keep = entries;
  detail = entries.length;
} else if (mode === "pith") {
  const session = SessionFile.open(file, { readOnly: true });
  const context = session.buildContext();
  keep = [session, context];
  detail = context.messages.length;
} else if (mode !== "idle") {
  throw new Error(`unknown mode: ${mode}`);
}

const mem = process.memoryUsage();
const maxRss = process.resourceUsage().maxRSS * 1024; // reported in KiB
// heapUsed above still counts the loader's garbage; after a collection it is what the result holds
collectGarbage();
const heapAfterGc = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ mode, detail, rss: mem.rss, heapUsed: mem.heapUsed, heapAfterGc, external: mem.external, arrayBuffers: mem.arrayBuffers, maxRss, kept: keep !== undefined }));
