// Pruning old tool output for real: before a model request, when the prune settings say a batch
// is due (src/compaction/prune.ts decides, purely), each output left out is stored as a Pi 1.x
// `context_edit` entry whose replacement is the placeholder. The decision is then durable (a
// reopened session, a fork and Pi 1.5.2 see the same context), belongs to this branch only, and
// rewrites nothing: the original tool results stay in the file. The entries are appended like
// any other (children of the leaf); the next request is built from the edited context. The clock
// is read here: a context whose last reply is older than the provider's cache life is pruned
// without waiting for a full batch, since its next request rewrites the cache anyway.
import type { Logger } from "pino";
import { planPrune, PROMPT_CACHE_TTL_MS, type PruneSettings } from "../../compaction/index.js";
import type { SessionFile } from "../../session/session-file.js";

export interface PruneOutcome {
  /** the context_edit entries stored, oldest target first */
  entryIds: string[];
  freedTokens: number;
}

/** Stores a prune batch if one is due; returns what was stored (nothing: no entries). */
export function pruneToolOutputsBeforeRequest(file: SessionFile, settings: PruneSettings, logger?: Logger, now = Date.now()): PruneOutcome {
  const entryIds: string[] = [];
  if (!settings.enabled) return { entryIds, freedTokens: 0 };
  const ctx = file.buildContext();
  const lastReply = ctx.messages.findLast((m) => m.role === "assistant");
  const plan = planPrune(ctx.messages, settings, { cacheCold: lastReply !== undefined && now - lastReply.timestamp > PROMPT_CACHE_TTL_MS });
  try {
    for (const e of plan.edits) entryIds.push(file.append({ type: "context_edit", targetId: ctx.entryIds[e.index], replacement: { content: [{ type: "text", text: e.text }] } }).id);
  } catch (err) {
    // the context without (some of) the edits is still a correct one: the request goes ahead
    logger?.warn({ err, stored: entryIds.length, planned: plan.edits.length }, "storing the pruned tool outputs failed");
  }
  if (entryIds.length > 0) logger?.info({ pruned: entryIds.length, freedTokens: plan.freedTokens }, "old tool outputs left out of the context");
  return { entryIds, freedTokens: plan.freedTokens };
}
