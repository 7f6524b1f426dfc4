// Pure parsers for Ollama's model listing (ollama/ollama api/types.go ListResponse, ShowResponse):
//   GET  /api/tags  models[].name; newer servers add details.context_length and capabilities
//   POST /api/show  model_info["<arch>.context_length"] where <arch> = model_info["general.architecture"];
//                   parameters (Modelfile PARAMETER lines, "num_ctx 8192"); capabilities
//                   ("completion", "tools", "thinking", "vision", ...)
// The window pith acts on is the Modelfile's num_ctx when it sets one (what the model's author or
// the user chose), else the model's own context_length; pith then sends it as options.num_ctx.
import { positiveInt } from "./parse-openai.js";
import type { DiscoveredModel } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

export interface OllamaTag {
  id: string;
  /** details.context_length, which newer servers put in the listing */
  contextLength?: number;
  capabilities?: string[];
}

export function parseOllamaTags(body: unknown): OllamaTag[] {
  const list = isObj(body) && Array.isArray(body.models) ? body.models.filter(isObj) : [];
  const out: OllamaTag[] = [];
  for (const m of list) {
    const id = typeof m.name === "string" && m.name ? m.name : typeof m.model === "string" ? m.model : undefined;
    if (!id) continue;
    const tag: OllamaTag = { id };
    const ctx = isObj(m.details) ? positiveInt(m.details.context_length) : undefined;
    if (ctx) tag.contextLength = ctx;
    if (Array.isArray(m.capabilities)) tag.capabilities = m.capabilities.filter((c): c is string => typeof c === "string");
    out.push(tag);
  }
  return out;
}

/** model_info's context length: the architecture's key, else the one `<arch>.context_length` key there is. */
export function showContextLength(modelInfo: unknown): number | undefined {
  if (!isObj(modelInfo)) return undefined;
  const arch = modelInfo["general.architecture"];
  if (typeof arch === "string" && arch) {
    const n = positiveInt(modelInfo[`${arch}.context_length`]);
    if (n) return n;
  }
  // "<arch>.context_length" exactly: not "<arch>.rope.scaling.original_context_length"
  const keys = Object.keys(modelInfo).filter((k) => /^[^.]+\.context_length$/.test(k));
  return keys.length === 1 ? positiveInt(modelInfo[keys[0]]) : undefined;
}

/** A `num_ctx` in the Modelfile parameters ("num_ctx                        8192"). */
export function parametersNumCtx(parameters: unknown): number | undefined {
  if (typeof parameters !== "string") return undefined;
  const m = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return m ? positiveInt(Number(m[1])) : undefined;
}

function withCapabilities(d: DiscoveredModel, caps: string[] | undefined): DiscoveredModel {
  if (!caps) return d;
  return { ...d, thinking: caps.includes("thinking"), tools: caps.includes("tools"), vision: caps.includes("vision") };
}

/** What /api/tags alone says of a model (enough when the server puts the window there). */
export function modelFromTag(tag: OllamaTag): DiscoveredModel {
  const d: DiscoveredModel = { id: tag.id };
  if (tag.contextLength) Object.assign(d, { contextWindow: tag.contextLength, windowFrom: "details.context_length" });
  return withCapabilities(d, tag.capabilities);
}

/** A model from its /api/show answer. */
export function parseOllamaShow(id: string, body: unknown): DiscoveredModel {
  if (!isObj(body)) return { id };
  const trained = showContextLength(body.model_info);
  const numCtx = parametersNumCtx(body.parameters);
  const d: DiscoveredModel = { id };
  if (numCtx) {
    // a num_ctx above the model's own window is cut to it by Ollama (llm/server.go)
    Object.assign(d, { contextWindow: trained ? Math.min(numCtx, trained) : numCtx, windowFrom: "parameters num_ctx" });
    if (trained && trained !== d.contextWindow) d.maxContextWindow = trained;
  } else if (trained) Object.assign(d, { contextWindow: trained, windowFrom: "model_info context_length" });
  const caps = Array.isArray(body.capabilities) ? body.capabilities.filter((c): c is string => typeof c === "string") : undefined;
  return withCapabilities(d, caps);
}
