// A Messages API bill with prompt caching, modelled on Anthropic's documented rules, for cost
// benches (prune, compaction framings). Pure: feed it request bodies as sent, with a clock.
//   - The prompt is the blocks in cache order: tools, then system, then each message's content
//     blocks. A `cache_control` on a block is a breakpoint: the prefix up to it is written to the
//     cache (billed at 1.25x the input price) unless already there, and lives 5 minutes,
//     refreshed each time it is read.
//   - A request reads the longest cached prefix that ends at a block boundary at most 20 blocks
//     before one of its breakpoints (billed at 0.1x); what follows up to its last breakpoint is
//     written, what follows that is plain input (1x).
//   - A prefix shorter than the model's minimum cacheable length (1024 tokens for Sonnet) is not
//     cached. Token counts are pith's estimates of each block's JSON, not a tokenizer's.
import { createHash } from "node:crypto";
import { estimateTextTokens } from "../src/compaction/index.js";

export interface Prices {
  /** USD per million input tokens; cache reads cost 0.1x, writes 1.25x */
  input: number;
  /** USD per million output tokens */
  output: number;
}

const SONNET_PRICES: Prices = { input: 3, output: 15 };

export interface Bill {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** USD */
  cost: number;
}

const CACHE_READ_FACTOR = 0.1;
const CACHE_WRITE_FACTOR = 1.25;
export const CACHE_TTL_MS = 5 * 60_000;
const LOOKBACK_BLOCKS = 20;

interface PromptBlock {
  tokens: number;
  breakpoint: boolean;
  /** hash of the prompt up to and including this block */
  prefix: string;
}

/** The request's blocks in cache order, each with its size and whether it carries a breakpoint. */
export function promptBlocks(body: Record<string, any>): PromptBlock[] {
  const raw: unknown[] = [...(body.tools ?? []), ...(typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []))];
  for (const m of body.messages ?? []) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const b of content) raw.push({ role: m.role, ...b });
  }
  const hash = createHash("sha256");
  return raw.map((b) => {
    const { cache_control, ...rest } = b as Record<string, unknown>;
    const json = JSON.stringify(rest);
    hash.update(json);
    return { tokens: Math.ceil(estimateTextTokens(json)), breakpoint: cache_control !== undefined, prefix: hash.copy().digest("hex") };
  });
}

export function addBills(a: Bill, b: Bill): Bill {
  return { input: a.input + b.input, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, output: a.output + b.output, cost: a.cost + b.cost };
}

export const NO_BILL: Bill = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, cost: 0 };

/** One provider's prompt cache and the bills it gives. */
export class CacheBilling {
  /** prefix hash -> when it expires */
  private readonly cache = new Map<string, number>();

  constructor(
    private readonly prices: Prices = SONNET_PRICES,
    private readonly minCacheTokens = 1024,
    private readonly ttlMs = CACHE_TTL_MS,
  ) {}

  /** Bills one request sent at `nowMs` whose reply was `outputTokens` long. */
  bill(body: Record<string, any>, nowMs: number, outputTokens: number): Bill {
    const blocks = promptBlocks(body);
    const alive = (i: number) => (this.cache.get(blocks[i].prefix) ?? 0) > nowMs;
    let hit = -1;
    let lastBreakpoint = -1;
    blocks.forEach((b, i) => {
      if (!b.breakpoint) return;
      lastBreakpoint = i;
      for (let j = i; j >= Math.max(0, i - LOOKBACK_BLOCKS) && j > hit; j--) if (alive(j)) hit = j;
    });
    if (hit >= 0) this.cache.set(blocks[hit].prefix, nowMs + this.ttlMs);
    let upTo = 0;
    let read = 0;
    let written = 0;
    let input = 0;
    for (let i = 0; i < blocks.length; i++) {
      upTo += blocks[i].tokens;
      if (i <= hit) read += blocks[i].tokens;
      else if (i <= lastBreakpoint && upTo >= this.minCacheTokens) written += blocks[i].tokens;
      else input += blocks[i].tokens;
      if (blocks[i].breakpoint && upTo >= this.minCacheTokens) this.cache.set(blocks[i].prefix, nowMs + this.ttlMs);
    }
    const perToken = this.prices.input / 1e6;
    const cost = input * perToken + read * perToken * CACHE_READ_FACTOR + written * perToken * CACHE_WRITE_FACTOR + (outputTokens * this.prices.output) / 1e6;
    return { input, cacheRead: read, cacheWrite: written, output: outputTokens, cost };
  }
}
