// The prompts that arrive while a run is under way: steers (delivered after the running tool,
// the turn's other calls skipped) and follow-ups (delivered when the model would stop). Kept
// apart from the loop: the loop only asks whether any are waiting and has them delivered.
// Every change is reported (the host persists the queue so an accepted prompt survives a crash);
// what is left when a run ends is handed to the run's owner (agent-options.ts: queueLeft).
import type { ImageContent } from "../messages/types.js";

export interface PromptInput {
  text: string;
  images?: ImageContent[];
  /** when the prompt was accepted (ms); the stored user message carries it (default: when stored) */
  timestamp?: number;
}

/** A prompt waiting in the steer or follow-up queue. */
export interface QueuedPrompt extends PromptInput {
  delivery: "steer" | "followUp";
  timestamp: number;
}

export type QueueChange = "queued" | "delivered";

export class PendingPrompts {
  private readonly steers: QueuedPrompt[] = [];
  private readonly followUps: QueuedPrompt[] = [];

  /** `changed` hears of every change, after it is made. */
  constructor(private readonly changed: (change: QueueChange) => void) {}

  get counts(): { steer: number; followUp: number } {
    return { steer: this.steers.length, followUp: this.followUps.length };
  }

  /** Both queues, in the order the prompts were accepted. */
  get all(): QueuedPrompt[] {
    return [...this.steers, ...this.followUps].sort((a, b) => a.timestamp - b.timestamp);
  }

  get hasSteer(): boolean {
    return this.steers.length > 0;
  }

  get isEmpty(): boolean {
    return this.steers.length === 0 && this.followUps.length === 0;
  }

  add(input: PromptInput, delivery: "steer" | "followUp"): void {
    (delivery === "steer" ? this.steers : this.followUps).push({ ...input, delivery, timestamp: input.timestamp ?? Date.now() });
    this.changed("queued");
  }

  /** Hands the steers (or follow-ups), oldest first, to `store`; one change reported if there were any. */
  deliver(delivery: "steer" | "followUp", store: (input: PromptInput) => void): void {
    const queue = delivery === "steer" ? this.steers : this.followUps;
    if (queue.length === 0) return;
    while (queue.length > 0) {
      const { delivery: _delivery, ...input } = queue.shift() as QueuedPrompt;
      store(input);
    }
    this.changed("delivered");
  }

  /**
   * Empties both queues and returns what they held, in the order accepted, with no change
   * reported: the run is ending and the owner decides (the next run, an abort's drop, a close).
   */
  takeAll(): QueuedPrompt[] {
    const left = this.all;
    this.steers.length = 0;
    this.followUps.length = 0;
    return left;
  }
}
