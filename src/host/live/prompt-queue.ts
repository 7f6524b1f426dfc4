// The steer / follow-up queue, kept in the session file: every change is recorded as the whole
// queue (a bookkeeping entry), synced when a prompt is queued, so an accepted prompt survives a
// crash and is restored when the session is opened again.
import type { Logger } from "pino";
import type { QueuedPrompt } from "../../agent/agent.js";
import { messageText } from "../../messages/types.js";
import type { SessionFile } from "../../session/session-file.js";
import { PROMPT_QUEUE_TYPE } from "../../session/types.js";

export type QueueChange = "queued" | "delivered" | "dropped";

/**
 * The queue as last recorded, less the prompts stored as user messages after that record (a crash
 * between delivering a prompt and recording the shorter queue): a delivered message carries the
 * queued prompt's timestamp.
 */
export function savedQueue(file: SessionFile): QueuedPrompt[] {
  const saved = file.latestBookkeepingTail(PROMPT_QUEUE_TYPE);
  const items = ((saved?.data as { items?: QueuedPrompt[] } | undefined)?.items ?? []).filter((q) => typeof q?.text === "string" && typeof q.timestamp === "number");
  if (items.length === 0) return [];
  const delivered = new Set<string>();
  for (const e of saved!.after) if (e.type === "message" && e.message.role === "user") delivered.add(`${e.message.timestamp}\0${messageText(e.message)}`);
  return items.filter((q) => !delivered.has(`${q.timestamp}\0${q.text}`));
}

/** Records the queue after a change; a newly queued prompt is synced before it is acknowledged. */
export function saveQueue(file: SessionFile, queue: readonly QueuedPrompt[], change: QueueChange, logger: Logger): void {
  try {
    file.appendBookkeeping(PROMPT_QUEUE_TYPE, { items: queue }, { sync: change === "queued" });
  } catch (err) {
    if (change === "queued") throw err;
    logger.warn({ err, file: file.file }, "could not record the prompt queue");
  }
}
