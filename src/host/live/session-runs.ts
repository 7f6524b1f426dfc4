// A live session's runs, and what becomes of a prompt the user was told was taken. A prompt
// starts a run, or joins the running one as a steer / follow-up (answered with its runId); the
// queue is recorded in the session file at every change (prompt-queue.ts). When a run ends with
// prompts still queued: the user's abort drops them and says so (prompts_dropped), unless it
// asked to send them ("stop and send now": abort {queued: "send"}); a close keeps them recorded
// for the reopen; any other end (an error, max_turns, length) and an abort that sends them start
// the next run with them at once (agent_start.queuedFrom names the run they were queued on).
// Prompts queued while a run is ending normally (an end-of-run compaction) are the agent's: that
// run goes on. Every change of the queue is announced to every client (queue_update).
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { RunStopReason } from "../../../protocol/index.js";
import type { Agent, PromptInput, QueuedPrompt } from "../../agent/agent.js";
import type { ImageContent } from "../../messages/types.js";
import type { SessionFile } from "../../session/session-file.js";
import { saveQueue, savedQueue, type QueueChange } from "./prompt-queue.js";
import { untilStored } from "./session-agent.js";
import type { EventFields } from "./session-events.js";

export interface RunsHost {
  file: SessionFile;
  logger: Logger;
  /** the agent now (a model change rebuilds it) */
  agent(): Agent;
  /** the session is closing or shutting down: not the user dropping what is queued */
  closing(): boolean;
  emit<E extends "prompts_dropped" | "queue_update">(type: E, fields: EventFields<E>): void;
}

/** What clients are shown of a queued prompt (not its images). */
const shown = ({ delivery, text, timestamp }: QueuedPrompt) => ({ delivery, text, timestamp });

export class SessionRuns {
  /** stored first by the next run: prompts restored on open (queued before a close or a crash), or left by the last run */
  private carried: QueuedPrompt[];
  /** the run that left `carried`, while the run that takes them is about to start */
  private carriedFrom: string | null = null;
  private runPromise: Promise<unknown> | null = null;
  /** the run whose abort sends what is queued on it rather than dropping it */
  private sendingFrom: string | null = null;

  constructor(private readonly host: RunsHost) {
    this.carried = savedQueue(host.file);
  }

  /** A run is about to start with what the last one left: the session counts as running. */
  get due(): boolean {
    return this.carriedFrom !== null;
  }

  /** The queued prompts: the agent's and those the next run will store first. */
  pending(): { steer: number; followUp: number } {
    const p = { ...this.host.agent().pending };
    for (const q of this.carried) p[q.delivery]++;
    return p;
  }

  /** The queued prompts as clients see them, in the order accepted: those the next run will store first, then the agent's. */
  queue(): { delivery: "steer" | "followUp"; text: string; timestamp: number }[] {
    return [...this.carried, ...this.host.agent().queue].map(shown);
  }

  recordQueue(queue: readonly QueuedPrompt[], change: QueueChange): void {
    saveQueue(this.host.file, queue, change, this.host.logger);
    this.host.emit("queue_update", { queue: this.queue() });
  }

  /** The running run is about to be aborted by "stop and send now": what is queued on it starts the next run. */
  sendQueuedOnAbort(): void {
    this.sendingFrom = this.host.agent().runId;
  }

  /** Starts a run with the user's message, or queues it (steer / follow-up) on the run the gate let it join. */
  async prompt(input: { text: string; images?: ImageContent[]; delivery?: "steer" | "followUp" }): Promise<{ runId: string }> {
    const agent = this.host.agent();
    if (agent.isRunning) {
      if (input.delivery === "steer") agent.steer(input);
      else agent.followUp(input);
      return { runId: agent.runId as string };
    }
    const { runId, stored } = this.start({ text: input.text, images: input.images });
    await stored;
    return { runId };
  }

  /** The agent's queueLeft hook: the run is ending with `left` still queued. */
  queueLeft(left: QueuedPrompt[], end: { runId: string; stopReason: RunStopReason; aborted: boolean }): void {
    const send = this.sendingFrom === end.runId;
    this.sendingFrom = null;
    if (this.host.closing()) return; // still recorded as queued: restored on the next open
    if (end.aborted && !send) {
      this.recordQueue(this.host.agent().queue, "dropped");
      this.host.emit("prompts_dropped", { runId: end.runId, reason: "aborted", prompts: left.map(shown) });
      return;
    }
    this.carried.push(...left);
    this.carriedFrom = end.runId;
  }

  /** Waits for the current run, and the runs it left prompts to, to end. */
  async idle(): Promise<void> {
    while (this.runPromise) await this.runPromise;
  }

  /**
   * Starts a run: the carried prompts first, then `input`. `stored` resolves once they are
   * stored (and synced); the record of the queue then says they were delivered.
   */
  private start(input?: PromptInput): { runId: string; stored: Promise<void> } {
    const agent = this.host.agent();
    const runId = randomUUID();
    const earlier: PromptInput[] = this.carried.map(({ delivery: _d, ...p }) => p);
    const queuedFrom = this.carriedFrom ?? undefined;
    this.carriedFrom = null;
    // the run starts now; the user messages are stored (and synced) before run() first yields
    const stored = untilStored(agent, earlier.length + (input ? 1 : 0)).then(() => {
      if (earlier.length === 0) return;
      this.carried.splice(0, earlier.length); // not any this run left behind meanwhile
      this.recordQueue([...this.carried, ...agent.queue], "delivered");
    });
    const run = agent.run(input, runId, earlier, queuedFrom).then(() => this.startCarried());
    this.runPromise = run;
    const done = () => {
      if (this.runPromise === run) this.runPromise = null;
    };
    run.then(done, done);
    return { runId, stored };
  }

  /** After a run: the run the prompts it left are for (unless a prompt started one with them first, or the session is closing). */
  private startCarried(): Promise<unknown> | undefined {
    if (this.carriedFrom === null) return undefined;
    if (this.host.closing() || this.host.agent().isRunning) {
      this.carriedFrom = null;
      return undefined;
    }
    this.start();
    return this.runPromise ?? undefined;
  }
}
