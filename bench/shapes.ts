// Generated session files of the shapes real sessions take, for the shapes bench and the tests
// that check the light path against a full parse. What a scan costs can depend on what the text
// holds (escapes, line length, entry count, key order): each shape stresses one of those.
// Same shape + size + seed -> same bytes.
import { closeSync, openSync, writeSync } from "node:fs";
import { code, compactionSummary, filePath, logText, outputSize, prose, Rng } from "./synthetic-session.js";

export const SHAPES = ["prose", "code", "huge-lines", "tiny", "branched", "never-compacted", "compacted-often", "non-ascii", "key-order", "pi-custom"] as const;
export type ShapeName = (typeof SHAPES)[number];

export interface ShapeInfo {
  entries: number;
  compactions: number;
  branches: number;
  bytes: number;
}

interface Spec {
  /** compact when the path since the last compaction holds this many tokens (4 chars a token); 0: never */
  compactEvery: number;
  /** what a compaction keeps verbatim, in tokens */
  keep: number;
  /** chance per turn of going back a few turns (with a branch summary) */
  branch: number;
  user(rng: Rng): string;
  assistant(rng: Rng): string;
  tool(rng: Rng): string;
  /** tool rounds per turn */
  rounds: [number, number];
  /** keys out of Pi's order */
  shuffled?: boolean;
  /** Pi's custom / custom_message entries between messages */
  custom?: boolean;
  /** a few tool results of 5-20 MB */
  huge?: boolean;
}

/** Plain words, no character JSON escapes. */
function plain(rng: Rng, chars: number): string {
  return prose(rng, chars).replace(/\n+/g, " ").replace(/[`"\\]/g, "");
}

/** Code dense in escapes: quotes, backslashes, tabs, newlines, control characters. */
function escapeHeavy(rng: Rng, chars: number): string {
  return code(rng, chars)
    .replace(/ {2}/g, "\t")
    .replace(/\(/g, '("\\')
    .replace(/;/g, ";\u0001");
}

const CJK = "会话压缩上下文窗口工具调用结果摘要文件修改读取写入编辑命令";
const EMOJI = ["😀", "🚀", "✅", "🧪", "📦", "🔧", "👩‍💻", "🇯🇵"];
/** CJK, emoji (surrogate pairs, joiners), accents; now and then a lone surrogate (written escaped). */
function nonAscii(rng: Rng, chars: number): string {
  let s = "";
  while (s.length < chars) {
    const r = rng.next();
    if (r < 0.5) s += CJK[rng.int(0, CJK.length - 1)];
    else if (r < 0.7) s += rng.pick(EMOJI);
    else if (r < 0.9) s += rng.pick(["é", "ß", "ø", "ñ", "ü", " ", " ", "."]);
    else if (r < 0.995) s += rng.pick(["a", "b", "c", "1", " "]);
    else s += "\ud83d";
  }
  return s;
}

const SPECS: Record<ShapeName, Spec> = {
  prose: { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => plain(r, r.logInt(40, 600)), assistant: (r) => plain(r, r.logInt(100, 1500)), tool: (r) => plain(r, outputSize(r)), rounds: [1, 8] },
  code: { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => escapeHeavy(r, r.logInt(100, 1500)), tool: (r) => escapeHeavy(r, outputSize(r)), rounds: [1, 8] },
  "huge-lines": { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => prose(r, r.logInt(100, 1500)), tool: (r) => code(r, outputSize(r)), rounds: [1, 8], huge: true },
  tiny: { compactEvery: 150_000, keep: 20_000, branch: 0.005, user: (r) => plain(r, r.int(4, 30)), assistant: (r) => plain(r, r.int(4, 40)), tool: (r) => plain(r, r.int(2, 30)), rounds: [0, 2] },
  branched: { compactEvery: 150_000, keep: 20_000, branch: 0.4, user: (r) => prose(r, r.logInt(40, 400)), assistant: (r) => prose(r, r.logInt(50, 600)), tool: (r) => code(r, r.logInt(100, 800)), rounds: [1, 3] },
  "never-compacted": { compactEvery: 0, keep: 0, branch: 0.01, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => prose(r, r.logInt(100, 1500)), tool: (r) => logText(r, outputSize(r), "npm test"), rounds: [1, 8] },
  "compacted-often": { compactEvery: 20_000, keep: 2_000, branch: 0.01, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => prose(r, r.logInt(100, 1500)), tool: (r) => code(r, outputSize(r)), rounds: [1, 8] },
  "non-ascii": { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => nonAscii(r, r.logInt(40, 600)), assistant: (r) => nonAscii(r, r.logInt(100, 1500)), tool: (r) => nonAscii(r, outputSize(r)), rounds: [1, 8] },
  "key-order": { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => prose(r, r.logInt(100, 1500)), tool: (r) => code(r, outputSize(r)), rounds: [1, 8], shuffled: true },
  "pi-custom": { compactEvery: 150_000, keep: 20_000, branch: 0.015, user: (r) => prose(r, r.logInt(40, 600)), assistant: (r) => prose(r, r.logInt(100, 1500)), tool: (r) => code(r, outputSize(r)), rounds: [1, 8], custom: true },
};

/** An entry with its keys in Pi's order, or in another writer's. */
function ordered(shuffled: boolean, base: { type: string; id: string; parentId: string | null; timestamp: string }, fields: Record<string, unknown>): Record<string, unknown> {
  if (!shuffled) return { ...base, ...fields };
  const message = fields.message as Record<string, unknown> | undefined;
  let rest = fields;
  if (message) {
    // the role last in the message, as another writer might put it
    const { role, ...others } = message;
    rest = { ...fields, message: { ...others, role } };
  }
  return { id: base.id, timestamp: base.timestamp, ...rest, parentId: base.parentId, type: base.type };
}

/** Writes a session of `shape`, about `targetBytes` long. */
export function writeShape(file: string, shape: ShapeName, targetBytes: number, seed = 1): ShapeInfo {
  const spec = SPECS[shape];
  const rng = new Rng(seed);
  const fd = openSync(file, "w");
  let pending: string[] = [];
  let pendingBytes = 0;
  let written = 0;
  const flush = () => {
    const chunk = pending.join("");
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
    pending = [];
    pendingBytes = 0;
  };
  const line = (value: object): number => {
    const text = JSON.stringify(value) + "\n";
    pending.push(text);
    const n = Buffer.byteLength(text);
    pendingBytes += n;
    if (pendingBytes >= 1 << 20) flush();
    return n;
  };
  let clock = Date.UTC(2025, 0, 6, 9, 0, 0);
  const tick = (lo: number, hi: number) => (clock += rng.int(lo, hi));
  line({ type: "session", version: 3, id: `${shape}-${seed}-0000-4000-8000-000000000000`, timestamp: new Date(clock).toISOString(), cwd: `/home/dev/${shape}` });

  const used = new Set<string>();
  const path: { id: string; cuttable: boolean; turnEnd: boolean; cum: number }[] = [];
  let entries = 0;
  let compactions = 0;
  let branches = 0;
  let lastCompaction = -1;
  let hugeLeft = spec.huge ? Math.max(2, Math.round(targetBytes / 25e6)) : 0;

  const emit = (type: string, fields: Record<string, unknown>, kind: { cuttable?: boolean; turnEnd?: boolean } = {}): string => {
    let id = rng.hex(8);
    while (used.has(id)) id = rng.hex(8);
    used.add(id);
    const base = { type, id, parentId: path.length > 0 ? path[path.length - 1].id : null, timestamp: new Date(clock).toISOString() };
    let value: Record<string, unknown>;
    if (spec.custom && (type === "custom" || type === "custom_message")) value = { type, ...fields, id: base.id, parentId: base.parentId, timestamp: base.timestamp }; // as Pi writes them
    else value = ordered(spec.shuffled ?? false, base, fields);
    const n = line(value);
    path.push({ id, cuttable: kind.cuttable ?? false, turnEnd: kind.turnEnd ?? false, cum: (path.length > 0 ? path[path.length - 1].cum : 0) + n });
    entries++;
    return id;
  };
  const usage = (output: number) =>
    shape === "tiny" ? { input: 1, output, cacheRead: 0, cacheWrite: 0 } : { input: rng.int(1, 12), output, cacheRead: rng.int(1000, 90000), cacheWrite: rng.int(0, 3000), totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const assistant = (content: unknown[], stopReason: "toolUse" | "stop") => {
    tick(2000, 40000);
    emit("message", { message: { role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(rng.int(5, 900)), stopReason, timestamp: clock } }, { cuttable: true, turnEnd: stopReason === "stop" });
  };

  emit("model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  emit("thinking_level_change", { thinkingLevel: "medium" });
  while (written + pendingBytes < targetBytes) {
    if (rng.chance(spec.branch)) {
      const ends: number[] = [];
      for (let i = path.length - 1; i > lastCompaction && ends.length < 5; i--) if (path[i].turnEnd) ends.push(i);
      if (ends.length >= 2) {
        const to = ends[rng.int(1, ends.length - 1)];
        const from = path[path.length - 1];
        path.length = to + 1;
        branches++;
        emit("branch_summary", { fromId: from.id, summary: prose(rng, rng.int(200, 900)) });
      }
    }
    tick(20000, 600000);
    const ask = spec.user(rng);
    emit("message", { message: { role: "user", content: shape === "tiny" ? ask : [{ type: "text", text: ask }], timestamp: clock } }, { cuttable: true });
    if (spec.custom && rng.chance(0.6)) emit("custom", { customType: rng.pick(["ext.status", "ext.metrics", "plan"]), data: { step: rng.int(1, 9), note: prose(rng, rng.int(20, 200)) } });
    const rounds = rng.int(spec.rounds[0], spec.rounds[1]);
    for (let k = 0; k < rounds; k++) {
      const id = `toolu_01${rng.base62(22)}`;
      const name = rng.pick(["read", "bash", "edit", "grep"]);
      const text = rng.chance(0.6) ? [{ type: "text", text: spec.assistant(rng) }] : [];
      assistant([...text, { type: "toolCall", id, name, arguments: { path: filePath(rng) } }], "toolUse");
      tick(50, 5000);
      let output = spec.tool(rng);
      if (hugeLeft > 0 && rng.chance(0.01)) {
        hugeLeft--;
        // 5-20 MB at 100 MB; smaller files get smaller ones (a test's 2 MB file, lines of ~100-400 KB)
        const scale = Math.min(1, targetBytes / 100e6);
        output = code(rng, rng.int(Math.max(1e5, 5e6 * scale), Math.max(2e5, 20e6 * scale)));
      }
      emit("message", { message: { role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text: output }], isError: false, timestamp: clock } });
      if (spec.custom && rng.chance(0.3)) emit("custom_message", { customType: "ext.note", content: prose(rng, rng.int(20, 300)), display: rng.chance(0.5) }, { cuttable: true });
    }
    assistant([{ type: "text", text: spec.assistant(rng) }], "stop");

    const since = path[path.length - 1].cum - (lastCompaction >= 0 ? path[lastCompaction].cum : 0);
    if (spec.compactEvery > 0 && since >= spec.compactEvery * 4) {
      const end = path[path.length - 1].cum;
      let kept = path.length - 1;
      while (kept > lastCompaction + 1 && (end - path[kept].cum < spec.keep * 4 || !path[kept].cuttable)) kept--;
      tick(10000, 60000);
      emit("compaction", { summary: compactionSummary(rng), firstKeptEntryId: path[kept].id, tokensBefore: Math.round(since / 4), details: { readFiles: [filePath(rng)], modifiedFiles: [filePath(rng)] } });
      lastCompaction = path.length - 1;
      compactions++;
    }
  }
  flush();
  closeSync(fd);
  return { entries, compactions, branches, bytes: written };
}
