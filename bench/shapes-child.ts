// One measurement of the shapes bench in a fresh process, so each has its own heap and peak RSS.
// Prints one JSON line per file (several files: one process measures them in turn, as the bench's
// smoke test does to spare the start-ups; the peak RSS is then the process's so far).
//   node --import tsx bench/shapes-child.ts plain <file>...   readFileSync + split + JSON.parse of every line
//   node --import tsx bench/shapes-child.ts pi <file>...      Pi 0.58.3: SessionManager.open + buildSessionContext
//   node --import tsx bench/shapes-child.ts pith <file>...    open + context, first and second tree, getMessages,
//                                                             navigateTree without a summary (on the file: use a copy)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionHost } from "../src/host/session-host.js";
import { createLogger } from "../src/log/logger.js";
import { SessionFile } from "../src/session/session-file.js";
import { openWithPi } from "../test/support/pi.js";
import { collectGarbage } from "./util.js";

const [mode, ...files] = process.argv.slice(2);
const ms = (t0: number) => Number((performance.now() - t0).toFixed(1));
const maxRssMb = () => Number(((process.resourceUsage().maxRSS * 1024) / (1 << 20)).toFixed(1));

for (const file of files) await measure(file);

async function measure(file: string): Promise<void> {
if (mode === "plain") {
  const t0 = performance.now();
  const entries: unknown[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) if (line) entries.push(JSON.parse(line));
  console.log(JSON.stringify({ ms: ms(t0), entries: entries.length, maxRssMb: maxRssMb() }));
} else if (mode === "pi") {
  const t0 = performance.now();
  const view = await openWithPi(file, { copy: false });
  console.log(JSON.stringify({ ms: ms(t0), messages: view.messages.length, maxRssMb: maxRssMb() }));
} else if (mode === "pith") {
  // what the modules themselves hold is not the session's
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  let t0 = performance.now();
  const s = SessionFile.open(file, { readOnly: true });
  const openOnly = performance.now() - t0;
  // the index alone (a context holds its messages: the whole file for a session never compacted)
  collectGarbage();
  const heapAfterOpenMb = Number(((process.memoryUsage().heapUsed - heapBefore) / (1 << 20)).toFixed(1));
  t0 = performance.now();
  const ctx = s.buildContext();
  const open = Number((openOnly + performance.now() - t0).toFixed(1));
  t0 = performance.now();
  const tree = await s.treeAsync();
  const tree1 = ms(t0);
  t0 = performance.now();
  await s.treeAsync();
  const tree2 = ms(t0);
  t0 = performance.now();
  const messages = s.buildContext().messages.length;
  const getMessages = ms(t0);
  // an entry early in the file: far from the leaf
  const target = tree.entries[Math.min(10, tree.entries.length - 1)].id;
  s.close();
  const host = new SessionHost({ sessionsDir: join(file, "..", "sessions"), logger: createLogger("silent"), env: { PITH_HOME: join(file, "..") } });
  const live = await host.open({ sessionFile: file });
  t0 = performance.now();
  await host.perform("navigateTree", { sessionId: live.id, targetId: target, summarize: false }, (held) => live.navigateTree(held, target, false));
  const navigate = ms(t0);
  await host.shutdown();
  console.log(JSON.stringify({ open, heapAfterOpenMb, tree1, tree2, getMessages, navigate, messages, treeEntries: tree.entries.length, contextMessages: ctx.messages.length, maxRssMb: maxRssMb() }));
} else throw new Error(`unknown mode ${mode}`);
}
