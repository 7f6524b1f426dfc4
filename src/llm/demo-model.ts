// The offline demo model: no network, no key. Each turn is chosen from the conversation it is
// sent (demo-script.ts) and streamed at a person's reading pace, in small pieces, so streaming,
// steering and aborting can be watched. It reports the tokens it was sent and wrote, estimated
// from their characters, so the context meter and compaction act on what is really there.
import { readRun } from "./demo-run.js";
import { nextDemoTurn } from "./demo-script.js";
import { playTurn } from "./scripted.js";
import type { Provider, StreamEvent, StreamRequest } from "./types.js";

/** The pause between two pieces of text, ms: about 14 words a second, slow enough to watch, steer and abort. PITH_DEMO_PACE_MS overrides it (0: no pause). */
export const DEMO_PACE_MS = 70;
const TEXT_CHUNK = 5;
const JSON_CHUNK = 40;
/** A tool call's arguments stream in at most this many pieces: a whole-file edit of the demo's notes takes seconds, not half a minute. */
const JSON_PIECES = 30;

export function demoPace(env: NodeJS.ProcessEnv): number {
  const v = env.PITH_DEMO_PACE_MS;
  const n = v === undefined || v.trim() === "" ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, 10_000) : DEMO_PACE_MS;
}

const tokens = (chars: number) => Math.ceil(chars / 4);

export class DemoProvider implements Provider {
  readonly name = "scripted";
  private calls = 0;

  constructor(private readonly paceMs: number = DEMO_PACE_MS) {}

  stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
    const turn = nextDemoTurn(readRun(request.messages));
    const sent = request.systemPrompt.length + JSON.stringify(request.tools).length + JSON.stringify(request.messages).length;
    const calls = JSON.stringify(turn.toolCalls ?? []).length;
    const written = (turn.text?.length ?? 0) + calls;
    const jsonChunkSize = Math.max(JSON_CHUNK, Math.ceil(calls / JSON_PIECES));
    return playTurn({ ...turn, chunkSize: TEXT_CHUNK, jsonChunkSize, delayMs: this.paceMs, usage: { input: tokens(sent), output: tokens(written) } }, request, ++this.calls);
  }
}
