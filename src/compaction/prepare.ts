// Everything a compaction decides before any model is asked: where to cut, what to summarize,
// which files and user messages to carry, and whether it is worth doing at all. Pure.
import type { CompactionReason } from "../../protocol/messages.js";
import { messageText, type AgentMessage } from "../messages/types.js";
import { cutPointAt, findCutPoint, type CutPoint } from "./cut-point.js";
import { contextTokens, estimateMessageTokens, estimateTextTokens } from "./estimate.js";
import { collectFileOps, collectPreviousFileLists, emptyFileOps, fileLists, formatFileLists, type FileLists } from "./file-ops.js";
import type { CompactionSettings } from "./settings.js";

export type { CompactionReason } from "../../protocol/messages.js";

export interface CompactionInput {
  /** the session's context (SessionFile.buildContext()) */
  messages: readonly AgentMessage[];
  entryIds: readonly string[];
  freshFrom: number;
  /** the latest compaction on the path, if any: its summary is messages[0] */
  previous?: { summary: string; details?: unknown; fromHook?: boolean };
  /** the system prompt and tool definitions, sent with every request (see contextTokens) */
  overheadTokens?: number;
}

export interface CompactionPreparation {
  reason: CompactionReason;
  firstKeptEntryId: string;
  firstKeptIndex: number;
  /** summarized into the main summary: everything before the cut, earlier kept messages included */
  historyMessages: AgentMessage[];
  /** with a split turn, the turn's beginning, summarized on its own */
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  keptMessages: AgentMessage[];
  /** the model-written part of the previous summary, to be updated */
  previousSummary?: string;
  fileLists: FileLists;
  /** user messages of the summarized span (and earlier ones carried before), oldest first */
  userMessages: string[];
  tokensBefore: number;
  keptTokens: number;
  /** the system prompt and tool definitions: part of every context, before and after */
  overheadTokens: number;
  projectedTokensAfter: number;
}

export type PrepareOutcome =
  | { ok: true; preparation: CompactionPreparation }
  | { ok: false; code: "nothing_to_compact" | "too_little_gain" | "cut_not_found"; message: string; tokensBefore: number };

export interface PrepareOptions {
  /**
   * cut here instead of where keepRecentTokens says (a summary written ahead of time is applied
   * with the cut it was written for; the kept part has grown since)
   */
  firstKeptEntryId?: string;
  /** the model-written summary's size, when it is already written (the gain check uses it) */
  summaryTokens?: number;
}

const APPENDED_SECTIONS = ["\n\n<user-messages>\n", "\n\n<read-files>\n", "\n\n<modified-files>\n"];
const ASSUMED_SUMMARY_TOKENS = 1500;

/** A summary without the sections pith appends (user messages, file lists): what the model wrote. */
function modelWrittenPart(summary: string): string {
  let end = summary.length;
  for (const marker of APPENDED_SECTIONS) {
    const at = summary.indexOf(marker);
    if (at >= 0 && at < end) end = at;
  }
  return summary.slice(0, end);
}

/** The newest user messages that fit in `budgetTokens`, oldest first; the newest is cut to fit if needed. */
function selectUserMessages(candidates: readonly string[], budgetTokens: number): string[] {
  const picked: string[] = [];
  const seen = new Set<string>();
  let used = 0;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const text = candidates[i].trim();
    if (!text || seen.has(text)) continue;
    const t = estimateTextTokens(text) + 4;
    if (used + t > budgetTokens) {
      if (picked.length === 0 && budgetTokens > 50) {
        const chars = Math.floor((text.length * (budgetTokens - 10)) / t);
        picked.push(`${text.slice(0, chars)} […]`);
      }
      break;
    }
    picked.push(text);
    seen.add(text);
    used += t;
  }
  return picked.reverse();
}

function formatUserMessages(messages: readonly string[]): string {
  if (messages.length === 0) return "";
  return `<user-messages>\nWhat the user said in the summarized part, word for word (oldest first):\n\n${messages.map((m) => `- ${m.replace(/\n/g, "\n  ")}`).join("\n")}\n</user-messages>`;
}

/** The summary pith stores: the model's text, then the user messages and file lists it appends itself. */
export function assembleSummary(modelText: string, userMessages: readonly string[], lists: FileLists): string {
  return [modelText.trim(), formatUserMessages(userMessages), formatFileLists(lists)].filter((s) => s.length > 0).join("\n\n");
}

export function prepareCompaction(input: CompactionInput, settings: CompactionSettings, reason: CompactionReason, options: PrepareOptions = {}): PrepareOutcome {
  const { messages } = input;
  const start = messages.length > 0 && messages[0].role === "compactionSummary" ? 1 : 0;
  const overheadTokens = input.overheadTokens ?? 0;
  const tokensBefore = contextTokens(messages, input.freshFrom, overheadTokens).tokens;
  let cut: CutPoint;
  if (options.firstKeptEntryId !== undefined) {
    const at = cutPointAt(messages, start, input.entryIds.indexOf(options.firstKeptEntryId));
    if (!at) return { ok: false, code: "cut_not_found", message: `entry ${options.firstKeptEntryId} is no longer a place this context can be cut`, tokensBefore };
    cut = at;
  } else cut = findCutPoint(messages, start, settings.keepRecentTokens, (i) => estimateMessageTokens(messages[i]));
  if (cut.firstKeptIndex <= start) {
    return { ok: false, code: "nothing_to_compact", message: `nothing lies before the cut: the context (${tokensBefore} tokens) fits in keepRecentTokens (${settings.keepRecentTokens})`, tokensBefore };
  }
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptIndex;
  const historyMessages = messages.slice(start, historyEnd);
  const turnPrefixMessages = cut.isSplitTurn ? messages.slice(cut.turnStartIndex, cut.firstKeptIndex) : [];
  const keptMessages = messages.slice(cut.firstKeptIndex);

  const ops = emptyFileOps();
  if (input.previous && !input.previous.fromHook) collectPreviousFileLists(input.previous.details, ops);
  for (const m of historyMessages) collectFileOps(m, ops);
  for (const m of turnPrefixMessages) collectFileOps(m, ops);
  const lists = fileLists(ops);

  const carried = (input.previous?.details as { userMessages?: unknown } | undefined)?.userMessages;
  const candidates = [
    ...(Array.isArray(carried) ? carried.filter((m): m is string => typeof m === "string") : []),
    ...[...historyMessages, ...turnPrefixMessages].filter((m) => m.role === "user").map((m) => messageText(m)),
  ];
  const userMessages = selectUserMessages(candidates, Math.floor(settings.keepRecentTokens * settings.userMessagesFraction));

  const previousSummary = input.previous ? modelWrittenPart(input.previous.summary) : undefined;
  let keptTokens = 0;
  for (let i = cut.firstKeptIndex; i < messages.length; i++) keptTokens += estimateMessageTokens(messages[i]);
  const summaryGuess = options.summaryTokens ?? Math.max(ASSUMED_SUMMARY_TOKENS, previousSummary ? Math.ceil(estimateTextTokens(previousSummary)) : 0);
  const projectedTokensAfter = overheadTokens + keptTokens + summaryGuess + Math.ceil(estimateTextTokens(formatUserMessages(userMessages) + formatFileLists(lists)));

  if (reason !== "manual" && tokensBefore - projectedTokensAfter < settings.minSavingsFraction * tokensBefore) {
    return {
      ok: false,
      code: "too_little_gain",
      message: `compaction skipped: it would free about ${Math.max(0, tokensBefore - projectedTokensAfter)} of ${tokensBefore} tokens, under ${Math.round(settings.minSavingsFraction * 100)}%`,
      tokensBefore,
    };
  }
  return {
    ok: true,
    preparation: {
      reason,
      firstKeptEntryId: input.entryIds[cut.firstKeptIndex],
      firstKeptIndex: cut.firstKeptIndex,
      historyMessages,
      turnPrefixMessages,
      isSplitTurn: cut.isSplitTurn,
      keptMessages,
      previousSummary,
      fileLists: lists,
      userMessages,
      tokensBefore,
      keptTokens,
      overheadTokens,
      projectedTokensAfter,
    },
  };
}
