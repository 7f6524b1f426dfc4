// A deterministic generator of large v3 session files shaped like a long coding session with
// Claude: turns of tool calls (read / write / edit / bash) and their results, a few branches,
// and a compaction every ~150k tokens of path content. Same seed + size -> same bytes, so
// benchmark figures are comparable between runs and machines.
//
// Keys are written in the order Pi writes them (type, id, parentId, timestamp, then `message`
// with `role` first): pith's fast scanner reads those from the front of a line without parsing
// it, and a benchmark with a different order would measure its slow path instead.
import { closeSync, openSync, writeSync } from "node:fs";
import { Prng } from "../src/eval/cases/prng.js";

export interface SyntheticOptions {
  targetBytes: number;
  seed?: number;
}

export interface SyntheticResult {
  /** entry lines written (the header not counted) */
  entries: number;
  compactions: number;
  bytes: number;
}

const CHARS_PER_TOKEN = 4;
const COMPACT_EVERY_TOKENS = 150_000;
const KEEP_TOKENS = 20_000;
const FLUSH_CHARS = 1 << 20;
const MODEL = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" } as const;
// USD per million tokens (Sonnet 4.5 list prices), so usage.cost looks like what Pi records
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

// -- seeded randomness --------------------------------------------------------------------------

/** The cases' seeded source (mulberry32), with the draws the synthetic text needs besides. */
export class Rng extends Prng {
  /** log-uniform: sizes of real tool output cluster at the small end */
  logInt(lo: number, hi: number): number {
    return Math.round(Math.exp(Math.log(lo) + this.next() * (Math.log(hi) - Math.log(lo))));
  }
  base62(chars: number): string {
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let s = "";
    for (let i = 0; i < chars; i++) s += alphabet[Math.floor(this.next() * 62)];
    return s;
  }
}

// -- text that looks like a coding session (ASCII only, so chars == bytes) ----------------------

const WORDS = (
  "the a to of and in that is for it with as on this be are by we from at or an not but can if " +
  "function module test error type value file handler request response cart order user session " +
  "cache config build server client route schema query index field update check return call " +
  "instead should would need because when then also still now fix change add remove rename move"
).split(" ");
const IDENTS = "user order cart session token config request response item price total cache query result payload handler router logger client store entry record buffer event options context state value".split(" ");
const TYPES = ["string", "number", "boolean", "User", "Order", "CartItem", "Session", "Config", "Request", "Response", "Promise<void>", "Record<string, unknown>"];
const DIRS = ["src/api", "src/cart", "src/orders", "src/auth", "src/db", "src/lib", "src/ui/components", "test", "scripts"];
const FILES = ["index", "handler", "service", "schema", "routes", "store", "utils", "types", "client", "middleware", "repository", "validators"];
const COMMANDS = ["npm test", "npx tsc --noEmit", "git status", "git diff --stat", "npm run lint", "git log --oneline -20", "curl -s localhost:3000/api/orders | jq .", "ls -la src", "rg -n 'TODO|FIXME' src", "npm run build"];

function cap(id: string): string {
  return id[0].toUpperCase() + id.slice(1);
}

function sentence(rng: Rng): string {
  const n = rng.int(6, 18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  if (rng.chance(0.3)) words.splice(rng.int(0, n - 1), 0, "`" + rng.pick(IDENTS) + cap(rng.pick(IDENTS)) + "`");
  return cap(words.join(" ")) + ".";
}

export function prose(rng: Rng, chars: number): string {
  let s = sentence(rng);
  while (s.length < chars) s += (rng.chance(0.15) ? "\n\n" : " ") + sentence(rng);
  return s;
}

export function filePath(rng: Rng): string {
  return `${rng.pick(DIRS)}/${rng.pick(FILES)}${rng.chance(0.2) ? ".test" : ""}.ts`;
}

function codeLine(rng: Rng): string {
  const a = rng.pick(IDENTS);
  const b = rng.pick(IDENTS);
  const indent = "  ".repeat(rng.int(0, 3));
  switch (rng.int(0, 9)) {
    case 0:
      return `import { ${a}${cap(b)} } from "../${rng.pick(FILES)}.js";`;
    case 1:
      return `${indent}const ${a}${cap(b)} = await this.${b}Service.get${cap(a)}(${a}Id);`;
    case 2:
      return `${indent}if (!${a} || ${a}.${b} === undefined) throw new ${cap(a)}Error("missing ${b}");`;
    case 3:
      return `export async function ${a}${cap(b)}(${a}: ${rng.pick(TYPES)}, opts: ${cap(b)}Options = {}): ${rng.pick(TYPES)} {`;
    case 4:
      return `${indent}return { ...${a}, ${b}: ${a}.${b} ?? ${rng.int(0, 500)}, updatedAt: Date.now() };`;
    case 5:
      return `${indent}// ${sentence(rng)}`;
    case 6:
      return `${indent}for (const ${a} of ${b}s) ${b}Map.set(${a}.id, ${a});`;
    case 7:
      return `${indent}}`;
    case 8:
      return `  ${a}${cap(b)}?: ${rng.pick(TYPES)};`;
    default:
      return `${indent}logger.debug({ ${a}, ${b} }, "${a} ${b} updated");`;
  }
}

export function code(rng: Rng, chars: number): string {
  let s = codeLine(rng);
  while (s.length < chars) s += "\n" + codeLine(rng);
  return s;
}

function jsonText(rng: Rng, chars: number): string {
  const rows: unknown[] = [];
  let size = 0;
  while (size < chars) {
    const row = { id: rng.int(1000, 99999), [rng.pick(IDENTS)]: rng.pick(WORDS), status: rng.pick(["pending", "paid", "shipped", "cancelled"]), total: rng.int(100, 99999) / 100, items: rng.int(1, 9), updatedAt: new Date(1736150400000 + rng.int(0, 9e8)).toISOString() };
    rows.push(row);
    size += 150;
  }
  return JSON.stringify(rows, null, 2);
}

export function logText(rng: Rng, chars: number, command: string): string {
  const lines: string[] = [`> ${command}`, ""];
  let size = 0;
  while (size < chars) {
    let line: string;
    switch (rng.int(0, 3)) {
      case 0:
        line = `${filePath(rng)}(${rng.int(1, 400)},${rng.int(1, 60)}): error TS${rng.int(2300, 2800)}: Type '${rng.pick(TYPES)}' is not assignable to type '${rng.pick(TYPES)}'.`;
        break;
      case 1:
        line = `  ${rng.chance(0.9) ? "ok" : "not ok"} ${rng.int(1, 300)} - ${rng.pick(IDENTS)} ${rng.pick(WORDS)} ${rng.pick(IDENTS)} (${rng.int(0, 900)}ms)`;
        break;
      case 2:
        line = `[${new Date(1736150400000 + rng.int(0, 9e8)).toISOString()}] ${rng.pick(["INFO", "INFO", "DEBUG", "WARN"])} ${rng.pick(IDENTS)}: ${sentence(rng)}`;
        break;
      default:
        line = ` ${filePath(rng)} | ${rng.int(1, 80)} ${"+".repeat(rng.int(0, 12))}${"-".repeat(rng.int(0, 8))}`;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Tool output size: mostly a few hundred bytes, sometimes a whole file or a long log (~20 KB). */
export function outputSize(rng: Rng): number {
  const r = rng.next();
  if (r < 0.75) return rng.logInt(200, 700);
  if (r < 0.96) return rng.logInt(700, 3000);
  return rng.logInt(3000, 20000);
}

export function compactionSummary(rng: Rng): string {
  const bullets = (n: number) => Array.from({ length: n }, () => `- ${sentence(rng)}`).join("\n");
  const files = (n: number) => Array.from({ length: n }, () => `- ${filePath(rng)}`).join("\n");
  let s = `## Goal\n${prose(rng, 200)}\n\n## Constraints & Preferences\n${bullets(3)}\n\n## Progress\n### Done\n${bullets(rng.int(4, 9))}\n\n### In Progress\n${bullets(rng.int(1, 3))}\n\n## Key Decisions\n${bullets(rng.int(2, 5))}\n\n## Next Steps\n${bullets(3)}\n\n## Critical Context\n${files(rng.int(3, 8))}`;
  const target = rng.int(2000, 4000);
  while (s.length < target) s += `\n- ${sentence(rng)}`;
  return s;
}

// -- the session -------------------------------------------------------------------------------

interface PathItem {
  id: string;
  /** where a compaction may cut (Pi keeps from a user or assistant message) */
  cuttable: boolean;
  /** ends a turn: where a user may branch back to */
  turnEnd: boolean;
  /** chars of path content up to and including this entry */
  cum: number;
}

export function writeSyntheticSession(file: string, opts: SyntheticOptions): SyntheticResult {
  const rng = new Rng(opts.seed ?? 1);
  const fd = openSync(file, "w");
  let pending: string[] = [];
  let pendingChars = 0;
  let written = 0; // bytes already flushed
  const flush = () => {
    const chunk = pending.join("");
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
    pending = [];
    pendingChars = 0;
  };
  const writeLine = (value: object): number => {
    const line = JSON.stringify(value) + "\n";
    pending.push(line);
    pendingChars += line.length;
    if (pendingChars >= FLUSH_CHARS) flush();
    return line.length;
  };

  let clock = Date.UTC(2025, 0, 6, 9, 0, 0);
  const tick = (minMs: number, maxMs: number) => (clock += rng.int(minMs, maxMs));
  const h = rng.hex(32);
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  writeLine({ type: "session", version: 3, id: uuid, timestamp: new Date(clock).toISOString(), cwd: "/home/dev/projects/shop" });

  const used = new Set<string>();
  const path: PathItem[] = [];
  let entries = 0;
  let compactions = 0;
  let lastCompaction = -1; // index in `path` of the latest compaction
  let nextCompactAt = COMPACT_EVERY_TOKENS * CHARS_PER_TOKEN;
  let contextTokens = 0; // what the model sees now, for usage figures
  let lastAssistantContext = 0;

  const emit = (type: string, fields: Record<string, unknown>, kind: { cuttable?: boolean; turnEnd?: boolean } = {}): string => {
    let id = rng.hex(8);
    while (used.has(id)) id = rng.hex(8);
    used.add(id);
    const parentId = path.length > 0 ? path[path.length - 1].id : null;
    const chars = writeLine({ type, id, parentId, timestamp: new Date(clock).toISOString(), ...fields });
    path.push({ id, cuttable: kind.cuttable ?? false, turnEnd: kind.turnEnd ?? false, cum: (path.length > 0 ? path[path.length - 1].cum : 0) + chars });
    contextTokens += chars / CHARS_PER_TOKEN;
    entries++;
    return id;
  };

  const assistant = (content: unknown[], stopReason: "toolUse" | "stop") => {
    const outChars = JSON.stringify(content).length;
    const output = Math.ceil(outChars / CHARS_PER_TOKEN);
    const input = rng.int(1, 12);
    const cacheWrite = Math.max(0, Math.round(contextTokens - lastAssistantContext));
    const cacheRead = Math.max(0, Math.round(lastAssistantContext));
    lastAssistantContext = contextTokens + output;
    const cost = {
      input: (input * PRICE.input) / 1e6,
      output: (output * PRICE.output) / 1e6,
      cacheRead: (cacheRead * PRICE.cacheRead) / 1e6,
      cacheWrite: (cacheWrite * PRICE.cacheWrite) / 1e6,
      total: 0,
    };
    cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
    const usage = { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
    tick(2_000, 40_000);
    emit("message", { message: { role: "assistant", content, ...MODEL, usage, stopReason, timestamp: clock } }, { cuttable: true, turnEnd: stopReason === "stop" });
  };

  const toolCall = (): { call: Record<string, unknown>; result: () => string } => {
    const id = `toolu_01${rng.base62(22)}`;
    const r = rng.next();
    const p = filePath(rng);
    if (r < 0.35) return { call: { type: "toolCall", id, name: "read", arguments: { path: p } }, result: () => code(rng, outputSize(rng)) };
    if (r < 0.45) {
      const content = code(rng, rng.logInt(200, 4000));
      return { call: { type: "toolCall", id, name: "write", arguments: { path: p, content } }, result: () => `Successfully wrote ${content.length} bytes to ${p}` };
    }
    if (r < 0.65) {
      const args = { path: p, oldText: code(rng, rng.logInt(40, 500)), newText: code(rng, rng.logInt(40, 700)) };
      return { call: { type: "toolCall", id, name: "edit", arguments: args }, result: () => `Successfully replaced text in ${p}.` };
    }
    const command = rng.pick(COMMANDS);
    const output = () => (command.includes("jq") ? jsonText(rng, outputSize(rng)) : logText(rng, outputSize(rng), command));
    return { call: { type: "toolCall", id, name: "bash", arguments: { command } }, result: output };
  };

  emit("model_change", { provider: MODEL.provider, modelId: MODEL.model });
  emit("thinking_level_change", { thinkingLevel: "medium" });

  while (written + pendingChars < opts.targetBytes) {
    // Now and then the user goes back a few turns (after the latest compaction) and tries again.
    if (rng.chance(0.015)) {
      const turnEnds: number[] = [];
      for (let i = path.length - 1; i > lastCompaction && turnEnds.length < 5; i--) if (path[i].turnEnd) turnEnds.push(i);
      if (turnEnds.length === 5) {
        const to = turnEnds[rng.int(1, 3)];
        const from = path[path.length - 1];
        contextTokens = lastAssistantContext = Math.max(0, contextTokens - (from.cum - path[to].cum) / CHARS_PER_TOKEN);
        path.length = to + 1;
        if (rng.chance(0.5)) emit("branch_summary", { fromId: from.id, summary: prose(rng, rng.int(300, 1200)) });
      }
    }

    tick(20_000, 600_000);
    const ask = prose(rng, rng.logInt(40, 600)) + (rng.chance(0.1) ? "\n\n```\n" + logText(rng, rng.logInt(300, 3000), "npm test") + "\n```" : "");
    emit("message", { message: { role: "user", content: [{ type: "text", text: ask }], timestamp: clock } }, { cuttable: true });

    const rounds = rng.int(1, 10);
    for (let round = 0; round < rounds; round++) {
      const calls = Array.from({ length: rng.chance(0.25) ? rng.int(2, 3) : 1 }, toolCall);
      const content: unknown[] = rng.chance(0.7) ? [{ type: "text", text: prose(rng, rng.logInt(30, 400)) }] : [];
      assistant([...content, ...calls.map((c) => c.call)], "toolUse");
      for (const c of calls) {
        tick(50, 5_000);
        const tc = c.call as { id: string; name: string };
        emit("message", { message: { role: "toolResult", toolCallId: tc.id, toolName: tc.name, content: [{ type: "text", text: c.result() }], isError: false, timestamp: clock } });
      }
    }
    assistant([{ type: "text", text: prose(rng, rng.logInt(100, 1500)) }], "stop");

    const sinceCompaction = path[path.length - 1].cum - (lastCompaction >= 0 ? path[lastCompaction].cum : 0);
    if (sinceCompaction >= nextCompactAt) {
      // keep ~20k tokens: the newest user/assistant message at least that far back
      const end = path[path.length - 1].cum;
      let kept = path.length - 1;
      while (kept > lastCompaction + 1 && (end - path[kept].cum < KEEP_TOKENS * CHARS_PER_TOKEN || !path[kept].cuttable)) kept--;
      const summary = compactionSummary(rng);
      const tokensBefore = Math.round(contextTokens);
      tick(10_000, 60_000);
      emit("compaction", { summary, firstKeptEntryId: path[kept].id, tokensBefore, details: { readFiles: [filePath(rng), filePath(rng)], modifiedFiles: [filePath(rng)] } });
      lastCompaction = path.length - 1;
      contextTokens = lastAssistantContext = (end - path[kept].cum) / CHARS_PER_TOKEN + summary.length / CHARS_PER_TOKEN;
      nextCompactAt = COMPACT_EVERY_TOKENS * CHARS_PER_TOKEN * (0.9 + 0.2 * rng.next());
      compactions++;
    }
  }
  flush();
  closeSync(fd);
  return { entries, compactions, bytes: written };
}
