// Pure parsers: what OpenAI-compatible servers say about their models and windows, body in,
// DiscoveredModel list out. Each server states its window in its own field:
//   vLLM         GET /v1/models          data[].max_model_len (what it serves, prompt + output)
//   OpenRouter   GET /api/v1/models      data[].context_length, top_provider.max_completion_tokens,
//                                        pricing.{prompt,completion,input_cache_read,input_cache_write} in USD per token
//   llama.cpp    GET /v1/models          data[].meta.n_ctx_train (the training window, not the loaded one),
//                                        owned_by "llamacpp"; router mode adds data[].status
//                GET /props              default_generation_settings.n_ctx (the window of a slot: what a request gets)
//   LM Studio    GET /v1/models          ids only (owned_by "organization_owner")
//                GET /api/v1/models      models[].loaded_instances[].config.context_length, max_context_length (0.4+)
//                GET /api/v0/models      data[].loaded_context_length (loaded only), max_context_length
import type { DiscoveredModel, ServerKind } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
/** a positive whole number, also from a numeric string (some gateways quote them) */
export function positiveInt(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}
/** USD per token (a string, as OpenRouter writes it) -> USD per million tokens */
function perMillion(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return undefined;
  return Math.round(n * 1e6 * 1e6) / 1e6;
}

function entries(body: unknown, key = "data"): Obj[] {
  const list = isObj(body) ? body[key] : Array.isArray(body) ? body : undefined;
  return Array.isArray(list) ? list.filter(isObj) : [];
}

/** Which server answered a /models list, from the marks each leaves on it. */
export function serverKindOf(body: unknown): ServerKind {
  const list = entries(body);
  if (list.some((m) => m.owned_by === "vllm" || m.max_model_len !== undefined)) return "vllm";
  if (list.some((m) => m.owned_by === "llamacpp" || isObj(m.meta) || isObj(m.status))) return "llamacpp";
  if (list.some((m) => m.owned_by === "organization_owner")) return "lmstudio";
  if (list.some((m) => m.context_length !== undefined && (isObj(m.pricing) || isObj(m.top_provider)))) return "openrouter";
  return "openai-compatible";
}

function pricingOf(p: unknown): DiscoveredModel["pricing"] {
  if (!isObj(p)) return undefined;
  const out: NonNullable<DiscoveredModel["pricing"]> = {};
  const input = perMillion(p.prompt);
  const output = perMillion(p.completion);
  const cacheRead = perMillion(p.input_cache_read);
  const cacheWrite = perMillion(p.input_cache_write);
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  if (cacheRead !== undefined) out.cacheRead = cacheRead;
  if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One entry of a /models list, reading every field a known server uses. */
function openAiEntry(m: Obj): DiscoveredModel | undefined {
  if (typeof m.id !== "string" || !m.id) return undefined;
  const out: DiscoveredModel = { id: m.id };
  const vllm = positiveInt(m.max_model_len);
  const lmLoaded = positiveInt(m.loaded_context_length);
  const contextLength = positiveInt(m.context_length);
  const top = isObj(m.top_provider) ? m.top_provider : undefined;
  // Groq says context_window, Mistral's API max_context_length (LM Studio's native list, where
  // that field means the most a model could load, has its own parser below)
  const contextWindow = positiveInt(m.context_window);
  const maxContext = positiveInt(m.max_context_length);
  if (vllm) Object.assign(out, { contextWindow: vllm, windowFrom: "max_model_len" });
  else if (lmLoaded) Object.assign(out, { contextWindow: lmLoaded, windowFrom: "loaded_context_length" });
  else if (contextLength) Object.assign(out, { contextWindow: contextLength, windowFrom: "context_length" });
  else if (contextWindow) Object.assign(out, { contextWindow, windowFrom: "context_window" });
  else if (maxContext) Object.assign(out, { contextWindow: maxContext, windowFrom: "max_context_length" });
  // llama.cpp: the training window; the loaded one comes from /props
  const trained = isObj(m.meta) ? positiveInt(m.meta.n_ctx_train) : undefined;
  if (trained) out.maxContextWindow = trained;
  const maxOut = positiveInt(top?.max_completion_tokens) ?? positiveInt(m.max_completion_tokens) ?? positiveInt(m.max_output_tokens);
  if (maxOut) out.maxOutputTokens = maxOut;
  const pricing = pricingOf(m.pricing);
  if (pricing) out.pricing = pricing;
  const params = Array.isArray(m.supported_parameters) ? m.supported_parameters : undefined;
  if (params) {
    out.tools = params.includes("tools");
    out.thinking = params.includes("reasoning") || params.includes("include_reasoning");
  }
  const inputs = isObj(m.architecture) && Array.isArray(m.architecture.input_modalities) ? m.architecture.input_modalities : undefined;
  if (inputs) out.vision = inputs.includes("image");
  return out;
}

/** GET {baseUrl}/models of any OpenAI-compatible server. */
export function parseOpenAiModels(body: unknown): DiscoveredModel[] {
  return entries(body)
    .map(openAiEntry)
    .filter((m): m is DiscoveredModel => m !== undefined);
}

/** llama-server in router mode (several models, loaded on demand) marks each entry with a status. */
export function isLlamaCppRouter(body: unknown): boolean {
  return entries(body).some((m) => isObj(m.status));
}

/** llama.cpp router mode: the ids of the models that are loaded now (asking /props of another would load it). */
export function llamaCppLoadedIds(body: unknown): string[] {
  return entries(body)
    .filter((m) => typeof m.id === "string" && (!isObj(m.status) || m.status.value === "loaded"))
    .map((m) => m.id as string);
}

/** GET {root}/props of llama-server: the window of one slot, which is what one request can use. */
export function parseLlamaCppProps(body: unknown): number | undefined {
  if (!isObj(body)) return undefined;
  const slot = isObj(body.default_generation_settings) ? positiveInt(body.default_generation_settings.n_ctx) : undefined;
  // a top-level n_ctx is read too, should a build put it there (the README of 2026 shows only the slot's)
  return slot ?? positiveInt(body.n_ctx);
}

/** LM Studio's GET /api/v1/models (0.4+) or GET /api/v0/models. */
export function parseLmStudioModels(body: unknown): DiscoveredModel[] {
  const out: DiscoveredModel[] = [];
  for (const m of entries(body, "models")) {
    if (typeof m.key !== "string" || !m.key || m.type === "embedding") continue;
    const d: DiscoveredModel = { id: m.key };
    const loaded = Array.isArray(m.loaded_instances) ? m.loaded_instances.filter(isObj) : [];
    // with several instances loaded, the smallest window is the one a request can count on
    const windows = loaded.map((i) => (isObj(i.config) ? positiveInt(i.config.context_length) : undefined)).filter((n): n is number => n !== undefined);
    if (windows.length > 0) Object.assign(d, { contextWindow: Math.min(...windows), windowFrom: "loaded_instances.config.context_length" });
    const max = positiveInt(m.max_context_length);
    if (max) d.maxContextWindow = max;
    if (isObj(m.capabilities)) {
      d.vision = m.capabilities.vision === true;
      d.tools = m.capabilities.trained_for_tool_use === true;
      d.thinking = isObj(m.capabilities.reasoning) && Array.isArray(m.capabilities.reasoning.allowed_options) && m.capabilities.reasoning.allowed_options.some((o) => o !== "off");
    }
    out.push(d);
  }
  for (const m of entries(body)) {
    if (typeof m.id !== "string" || !m.id || m.type === "embeddings") continue;
    const d: DiscoveredModel = { id: m.id };
    const loaded = positiveInt(m.loaded_context_length);
    if (loaded) Object.assign(d, { contextWindow: loaded, windowFrom: "loaded_context_length" });
    const max = positiveInt(m.max_context_length);
    if (max) d.maxContextWindow = max;
    if (m.type === "vlm") d.vision = true;
    out.push(d);
  }
  return out;
}
