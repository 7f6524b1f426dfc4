// The turns the ACP bench runs over both fronts (acp-fronts.ts), and what it reads from the lines
// each turn wrote: the time to the first streamed text, to the turn's end, the cost of one more
// streamed chunk, what went over the wire; and for a turn that writes a 1 MB file, its largest
// line and what that line is.
import type { Scenario } from "../test/support/fake-anthropic.js";
import { reply, textReply } from "../test/support/fake-anthropic.js";
import type { Front, Turn } from "./acp-fronts.js";
import type { ArrivedLine } from "./stdout-lines.js";
import { median, round } from "./util.js";

export interface Shape {
  name: string;
  script(): Scenario[];
  /** text deltas the fake sends (the cost of one more chunk compares two shapes' figures per delta) */
  deltas: number;
}

const CHUNK = 16;
const LONG_TEXT = "The change keeps each step small, so a reviewer can follow it line by line. ".repeat(520);
const PACED_TEXT = "One token after another. ".repeat(128);
const PACED_MS = 2;

export const SHORT = 0;
export const BURST = 1;
export const PACED = 2;

export const SHAPES: Shape[] = [
  { name: "short reply", script: () => [textReply("Done: the tests pass now.", { chunkSize: CHUNK })], deltas: 2 },
  // the fake sends every frame at once: the daemon reads many deltas per network read
  { name: `long reply, one burst (${Math.ceil(LONG_TEXT.length / CHUNK)} chunks)`, script: () => [textReply(LONG_TEXT, { chunkSize: CHUNK })], deltas: Math.ceil(LONG_TEXT.length / CHUNK) },
  // as a model streams: each delta its own read, event and line
  {
    name: `paced reply (${PACED_TEXT.length / CHUNK} chunks, ${PACED_MS} ms apart)`,
    script: () => [textReply(PACED_TEXT, { chunkSize: CHUNK, delayMs: PACED_MS })],
    deltas: PACED_TEXT.length / CHUNK,
  },
  {
    name: "tool calls (read, grep, bash)",
    script: () => [
      reply([
        { type: "text", text: "Let me look at the notes first." },
        { type: "tool_use", name: "read", input: { path: "notes.md" } },
        { type: "tool_use", name: "grep", input: { pattern: "passes", path: "." } },
        { type: "tool_use", name: "bash", input: { command: "echo checked" } },
      ]),
      textReply("The notes say the build passes on Node 20.", { chunkSize: CHUNK }),
    ],
    deltas: 5,
  },
];

export interface TurnFigures {
  /** prompt sent → first line with reply text */
  firstTextMs: number;
  /** prompt sent → the turn's last line */
  turnMs: number;
  lines: number;
  textLines: number;
  bytes: number;
  /** the daemon's CPU for the turn (ms; a mean over runs, the clock ticks are 10 ms) */
  cpuMs: number;
}

function turnFigures(front: Front, turn: Turn): TurnFigures {
  const texts = turn.lines.filter((l) => front.isText(l));
  if (texts.length === 0) throw new Error(`${front.name}: no reply text in the turn`);
  return {
    firstTextMs: texts[0].at - turn.t0,
    turnMs: turn.lines[turn.lines.length - 1].at - turn.t0,
    lines: turn.lines.length,
    textLines: texts.length,
    bytes: turn.lines.reduce((n, l) => n + l.bytes, 0),
    cpuMs: turn.cpuMs,
  };
}

/** Medians over runs of each figure; the CPU time a mean (one turn is a few clock ticks). */
export function medians(runs: readonly TurnFigures[]): TurnFigures {
  const m = (f: (r: TurnFigures) => number) => median(runs.map(f));
  return {
    firstTextMs: round(m((r) => r.firstTextMs), 2),
    turnMs: round(m((r) => r.turnMs), 2),
    lines: m((r) => r.lines),
    textLines: m((r) => r.textLines),
    bytes: m((r) => r.bytes),
    cpuMs: round(runs.reduce((n, r) => n + r.cpuMs, 0) / runs.length, 2),
  };
}

/** One turn of `shape` over `front`, the fake queued with its replies. */
export async function runShape(front: Front, shape: Shape, enqueue: (...s: Scenario[]) => void, tag: string): Promise<TurnFigures> {
  enqueue(...shape.script());
  return turnFigures(front, await front.turn(`${shape.name}: ${tag}`));
}

// -- the 1 MB write --

/** About `bytes` of TypeScript (quotes, tabs, non-ASCII: JSON escaping makes it larger on the wire). */
export function sourceText(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 7 === 0 ? `\texport function f${i}(a: string, b = "x${i}"): string {\n` : `\t\treturn a + b + 'line ${i}'; // é ${i}\n`;
    out.push(line);
    size += Buffer.byteLength(line);
  }
  return out.join("");
}

export function bigWriteScript(content: string): Scenario[] {
  return [
    reply(
      [
        { type: "text", text: "Writing big.ts." },
        { type: "tool_use", name: "write", input: { path: "big.ts", content } },
      ],
      { jsonChunkSize: 4096 },
    ),
    textReply("Written."),
  ];
}

export interface LineInfo {
  bytes: number;
  /** the message: method, and the update or event kind */
  what: string;
  /** its largest content block (ACP tool call content), as JSON, in bytes, and its type */
  largestBlock?: { type: string; bytes: number };
}

interface Msg {
  id?: unknown;
  method?: string;
  params?: { update?: { sessionUpdate?: string; status?: string; content?: unknown }; delta?: { type?: string }; type?: string };
}

function lineInfo(line: ArrivedLine): LineInfo {
  let m: Msg;
  try {
    m = JSON.parse(line.text) as Msg;
  } catch {
    return { bytes: line.bytes, what: "not JSON" };
  }
  const u = m.params?.update;
  const what = m.method === undefined ? `response to ${String(m.id)}` : [m.method, u?.sessionUpdate, u?.status, m.params?.delta?.type].filter(Boolean).join(" ");
  const content = Array.isArray(u?.content) ? (u.content as { type?: string }[]) : [];
  let largestBlock: LineInfo["largestBlock"];
  for (const b of content) {
    const bytes = Buffer.byteLength(JSON.stringify(b), "utf8");
    if (!largestBlock || bytes > largestBlock.bytes) largestBlock = { type: String(b.type), bytes };
  }
  return { bytes: line.bytes, what, ...(largestBlock ? { largestBlock } : {}) };
}

export interface LargestLines {
  largest: LineInfo;
  /** the largest line none of whose content blocks is over `limit` by itself */
  largestWithoutBigBlock: LineInfo;
  /** lines over `limit` */
  over: LineInfo[];
}

export function largestLines(lines: readonly ArrivedLine[], limit: number): LargestLines {
  const infos = lines.map(lineInfo);
  const biggest = (xs: LineInfo[]) => xs.reduce((a, b) => (b.bytes > a.bytes ? b : a), { bytes: 0, what: "none" } as LineInfo);
  return {
    largest: biggest(infos),
    largestWithoutBigBlock: biggest(infos.filter((i) => (i.largestBlock?.bytes ?? 0) <= limit)),
    over: infos.filter((i) => i.bytes > limit),
  };
}

export function describe(info: LineInfo): string {
  const block = info.largestBlock ? `; its largest block: ${info.largestBlock.type}, ${info.largestBlock.bytes.toLocaleString("en")} bytes` : "";
  return `${info.bytes.toLocaleString("en")} bytes (${info.what}${block})`;
}
