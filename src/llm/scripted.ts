// The offline provider: replays a script of assistant turns (text, tool calls, usage, errors),
// streamed in chunks like a real model. Deterministic: the same script gives the same session.
// Tests and frontend work use it; the offline demo (demo-model.ts) plays its turns with playTurn.
import { z } from "zod";
import { ErrorClass, ModelStopReason } from "../../protocol/messages.js";
import { PartialMessage } from "./partial.js";
import { ProviderError, type Provider, type StreamEvent, type StreamRequest } from "./types.js";
import { makeUsage } from "./usage.js";

const turnSchema = z.object({
  text: z.string().optional(),
  thinking: z.string().optional(),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()), id: z.string().optional() })).optional(),
  /** usage to report; without it the turn reports none (contexts are then estimated) */
  usage: z.object({ input: z.number(), output: z.number(), cacheRead: z.number().optional(), cacheWrite: z.number().optional() }).optional(),
  stopReason: ModelStopReason.optional(),
  /** fail this call instead of answering */
  error: z
    .object({
      errorClass: ErrorClass.exclude(["aborted"]),
      message: z.string(),
      status: z.number().optional(),
      retryAfterMs: z.number().optional(),
      /** fail after streaming this much of the text (a mid-stream error) */
      afterChars: z.number().optional(),
    })
    .optional(),
  /** characters per text delta (default 16) */
  chunkSize: z.number().int().positive().optional(),
  /** characters per tool-argument delta (default: chunkSize) */
  jsonChunkSize: z.number().int().positive().optional(),
  /** pause between deltas, ms (default 0) */
  delayMs: z.number().nonnegative().optional(),
});

export const scriptSchema = z.object({
  turns: z.array(turnSchema),
  /** start again from the first turn when the script runs out (default: answer that it ran out) */
  loop: z.boolean().optional(),
});

export type ScriptTurn = z.infer<typeof turnSchema>;
export type Script = z.infer<typeof scriptSchema>;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Streams one turn as a model would: thinking, text and tool-call arguments in chunks, then the message. */
export async function* playTurn(turn: ScriptTurn, request: StreamRequest, callNumber: number): AsyncGenerator<StreamEvent> {
  const partial = new PartialMessage(request.model, "scripted");
  const chunk = turn.chunkSize ?? 16;
  const pause = turn.delayMs ?? 0;
  const aborted = () => new ProviderError({ errorClass: "aborted", message: "request aborted" });
  try {
    yield partial.start();
    let index = 0;
    if (turn.thinking) {
      partial.beginThinking(index);
      for (let i = 0; i < turn.thinking.length; i += chunk) {
        if (pause) await sleep(pause, request.signal);
        yield partial.thinking(index, turn.thinking.slice(i, i + chunk));
      }
      index++;
    }
    if (turn.text) {
      partial.beginText(index);
      const limit = turn.error?.afterChars ?? turn.text.length;
      for (let i = 0; i < Math.min(limit, turn.text.length); i += chunk) {
        if (pause) await sleep(pause, request.signal);
        if (request.signal.aborted) throw aborted();
        yield partial.text(index, turn.text.slice(i, Math.min(i + chunk, limit)));
      }
      index++;
    }
    if (turn.error) throw new ProviderError({ errorClass: turn.error.errorClass, message: turn.error.message, status: turn.error.status, retryAfterMs: turn.error.retryAfterMs });
    for (const [n, call] of (turn.toolCalls ?? []).entries()) {
      const id = call.id ?? `toolu_scripted_${callNumber}_${n}`;
      yield partial.beginToolCall(index, id, call.name);
      const json = JSON.stringify(call.arguments);
      const jsonChunk = turn.jsonChunkSize ?? chunk;
      for (let i = 0; i < json.length; i += jsonChunk) {
        if (pause) await sleep(pause, request.signal);
        if (request.signal.aborted) throw aborted();
        yield partial.toolJsonDelta(index, json.slice(i, i + jsonChunk));
      }
      const end = partial.endBlock(index);
      if (end) yield end;
      index++;
    }
    if (request.signal.aborted) throw aborted();
    const u = turn.usage;
    partial.message.usage = makeUsage(u ? { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite } : {}, request.model.pricing);
    partial.message.stopReason = turn.stopReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? "toolUse" : "stop");
    yield partial.done();
  } catch (err) {
    yield partial.fail(err instanceof ProviderError ? err : request.signal.aborted ? aborted() : new ProviderError({ errorClass: "fatal", message: String(err) }));
  }
}

export class ScriptedProvider implements Provider {
  readonly name = "scripted";
  private next = 0;
  private calls = 0;

  constructor(private readonly script: Script) {
    scriptSchema.parse(script);
  }

  /** Turns played so far. */
  get position(): number {
    return this.next;
  }

  private take(): ScriptTurn {
    if (this.next >= this.script.turns.length) {
      if (this.script.loop && this.script.turns.length > 0) this.next = 0;
      else return { text: "(The scripted provider has no more turns in its script.)" };
    }
    return this.script.turns[this.next++];
  }

  stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
    return playTurn(this.take(), request, ++this.calls);
  }
}
