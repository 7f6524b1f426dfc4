// Asks a provider's server which models it serves and with which windows. Never throws: a
// failure is an "unreachable" result with the reason. Every request has a deadline.
import { requestJson, type JsonAnswer } from "./http.js";
import { modelFromTag, parseOllamaShow, parseOllamaTags } from "./parse-ollama.js";
import { isLlamaCppRouter, llamaCppLoadedIds, parseLlamaCppProps, parseLmStudioModels, parseOpenAiModels, serverKindOf } from "./parse-openai.js";
import type { DiscoveredModel, DiscoveryOptions, DiscoveryResult, DiscoveryTarget } from "./types.js";

const trim = (url: string) => url.replace(/\/+$/, "");
/** The server's root for its own endpoints (/props, /api/v1/models): the base URL without /v1. */
export const serverRoot = (baseUrl: string) => trim(baseUrl).replace(/\/v1$/, "");

/** Runs `work` over `items`, `limit` at a time, keeping the order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, runner));
  return out;
}

function failed(answer: Extract<JsonAnswer, { ok: false }>, now: number): DiscoveryResult {
  return { status: "unreachable", failure: answer.failure, reason: answer.reason, ...(answer.httpStatus ? { httpStatus: answer.httpStatus } : {}), at: now };
}

export async function discoverModels(target: DiscoveryTarget, options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const now = options.now ?? Date.now;
  try {
    if (target.api === "anthropic") return { status: "unsupported", reason: "pith reads no model listing from the Anthropic API: its built-in catalog covers Claude models", at: now() };
    if (target.api === "ollama") return await discoverOllama(target, options, now);
    return await discoverOpenAi(target, options, now);
  } catch (err) {
    // a parser met something it did not expect: still no throw
    return { status: "unreachable", failure: "bad_body", reason: `discovery failed: ${err instanceof Error ? err.message : String(err)}`, at: now() };
  }
}

const req = (options: DiscoveryOptions) => ({ timeoutMs: options.timeoutMs ?? 5000, signal: options.signal });

async function discoverOllama(target: DiscoveryTarget, options: DiscoveryOptions, now: () => number): Promise<DiscoveryResult> {
  const base = trim(target.baseUrl);
  const tags = await requestJson(target, `${base}/api/tags`, req(options));
  if (!tags.ok) return failed(tags, now());
  const listed = parseOllamaTags(tags.body);
  const limit = options.maxDetailRequests ?? 100;
  const models = await pool(listed, options.concurrency ?? 4, async (tag): Promise<DiscoveredModel> => {
    // a server that lists the window with capabilities needs no /api/show
    if (tag.contextLength && tag.capabilities) return modelFromTag(tag);
    if (listed.indexOf(tag) >= limit) return modelFromTag(tag);
    const show = await requestJson(target, `${base}/api/show`, { ...req(options), method: "POST", body: { model: tag.id } });
    // one model that will not show does not sink the others: it keeps what the listing said
    return show.ok ? { ...modelFromTag(tag), ...parseOllamaShow(tag.id, show.body) } : modelFromTag(tag);
  });
  return { status: "ok", server: "ollama", models, at: now() };
}

async function discoverOpenAi(target: DiscoveryTarget, options: DiscoveryOptions, now: () => number): Promise<DiscoveryResult> {
  const base = trim(target.baseUrl);
  const listing = await requestJson(target, `${base}/models`, req(options));
  if (!listing.ok) return failed(listing, now());
  const server = serverKindOf(listing.body);
  let models = parseOpenAiModels(listing.body);
  if (server === "llamacpp") models = await withLlamaCppWindows(target, listing.body, models, options);
  if (server === "lmstudio") models = await withLmStudioWindows(target, models, options);
  return { status: "ok", server, models, at: now() };
}

/**
 * llama-server's /v1/models gives the training window (meta.n_ctx_train); the window a request
 * gets is the slot's n_ctx from /props, often much smaller (-c). The training window is used as
 * the window only when the server has no /props at all (404).
 */
async function withLlamaCppWindows(target: DiscoveryTarget, listing: unknown, models: DiscoveredModel[], options: DiscoveryOptions): Promise<DiscoveredModel[]> {
  const root = serverRoot(target.baseUrl);
  const router = isLlamaCppRouter(listing);
  const loaded = new Set(router ? llamaCppLoadedIds(listing) : models.map((m) => m.id));
  const ids = models.map((m) => m.id).filter((id) => loaded.has(id)).slice(0, options.maxDetailRequests ?? 100);
  const props = new Map<string, JsonAnswer>();
  await pool(ids, options.concurrency ?? 4, async (id) => {
    // in router mode ask for this model without loading it
    const url = router ? `${root}/props?model=${encodeURIComponent(id)}&autoload=false` : `${root}/props`;
    props.set(id, await requestJson(target, url, req(options)));
  });
  return models.map((m) => {
    const answer = props.get(m.id);
    if (answer?.ok) {
      const n = parseLlamaCppProps(answer.body);
      if (n) return { ...m, contextWindow: n, windowFrom: "props default_generation_settings.n_ctx" };
    } else if (answer && answer.httpStatus === 404 && m.maxContextWindow) {
      return { ...m, contextWindow: m.maxContextWindow, windowFrom: "meta.n_ctx_train (no /props)" };
    }
    return m;
  });
}

/** LM Studio's compatible list has ids only: its own API says what is loaded and with which window. */
async function withLmStudioWindows(target: DiscoveryTarget, models: DiscoveredModel[], options: DiscoveryOptions): Promise<DiscoveredModel[]> {
  const root = serverRoot(target.baseUrl);
  let native = await requestJson(target, `${root}/api/v1/models`, req(options));
  if (!native.ok && native.httpStatus === 404) native = await requestJson(target, `${root}/api/v0/models`, req(options));
  if (!native.ok) return models;
  const byId = new Map(parseLmStudioModels(native.body).map((m) => [m.id, m]));
  return models.map((m) => ({ ...m, ...byId.get(m.id), id: m.id }));
}
