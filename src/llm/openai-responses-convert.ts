// Stored messages -> Responses API input items (with `store: false` the whole history goes in
// every request).
//
// What a reply from this same provider and model keeps, in the shapes Pi stores too so session
// files mean the same to both programs:
// - reasoning: the block's `thinkingSignature` holds the whole reasoning item as JSON
//   (id, summary, encrypted_content, asked for with include: ["reasoning.encrypted_content"]),
//   sent back unchanged so the model continues from its own reasoning. A reasoning item must be
//   followed by the item it led to, so one left last (a reply cut off while reasoning) is dropped.
// - text: `textSignature` holds {"v":1,"id":"msg_...","phase":...}; the message goes back as the
//   output item it was, id and phase included.
// - tool calls: the id is "<call_id>|<item id>"; the item id goes back only beside its reasoning.
// Encrypted reasoning is bound to the model that made it, so replies from another model of
// the same provider keep their text, calls and call ids but not their reasoning. Thinking from
// any other provider is dropped (as text the model would take it for something it said).
import type OpenAI from "openai";
import type { AgentMessage, TextContent } from "../messages/types.js";
import { dataUrl, joinedText, noteDroppedThinking, noteEmpty, pairTurns, resultText, sameOrigin, type AssistantTurn, type UserPart } from "./openai-convert.js";
import { safeToolId } from "./tool-ids.js";
import { toolsForProviders } from "./tool-schema.js";
import type { ToolSpec } from "./types.js";

type Item = OpenAI.Responses.ResponseInputItem;
type Phase = "commentary" | "final_answer";

export const RESPONSES_API = "openai-responses";

const CALL_ID_MAX = 64;

export interface ResponsesTarget {
  /** the provider the request goes to */
  provider: string;
  model: string;
}

export interface ResponsesConversion {
  input: Item[];
  notes: string[];
}

export function encodeTextSignature(id: string, phase?: Phase | null): string {
  return JSON.stringify(phase ? { v: 1, id, phase } : { v: 1, id });
}

/** {id, phase} from a text signature (Pi's JSON form, or an older bare message id) */
function parseTextSignature(signature: string | undefined): { id: string; phase?: Phase } | undefined {
  if (!signature) return undefined;
  if (signature.startsWith("{")) {
    try {
      const v = JSON.parse(signature) as { id?: unknown; phase?: unknown };
      if (typeof v.id !== "string") return undefined;
      return v.phase === "commentary" || v.phase === "final_answer" ? { id: v.id, phase: v.phase } : { id: v.id };
    } catch {
      return undefined;
    }
  }
  return { id: signature };
}

function reasoningItem(signature: string | undefined): OpenAI.Responses.ResponseReasoningItem | undefined {
  if (!signature?.startsWith("{")) return undefined;
  try {
    const item = JSON.parse(signature) as OpenAI.Responses.ResponseReasoningItem;
    return item?.type === "reasoning" && typeof item.id === "string" ? item : undefined;
  } catch {
    return undefined;
  }
}

function userItem(parts: readonly UserPart[]): Item {
  if (parts.every((p) => p.type === "text")) return { role: "user", content: joinedText(parts) };
  return { role: "user", content: parts.map((p) => (p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: dataUrl(p), detail: "auto" })) };
}

function resultOutput(turn: AssistantTurn, callId: string): OpenAI.Responses.ResponseInputItem.FunctionCallOutput["output"] {
  const result = turn.results.get(callId);
  if (!result?.content.some((c) => c.type === "image")) return resultText(result);
  return result.content.map((c) => (c.type === "text" ? { type: "input_text" as const, text: c.text } : { type: "input_image" as const, image_url: dataUrl(c), detail: "auto" as const }));
}

function assistantItems(turn: AssistantTurn, target: ResponsesTarget, notes: string[]): Item[] {
  const m = turn.message;
  const own = sameOrigin(m, target.provider, RESPONSES_API);
  const ownModel = own && m.model === target.model;
  const callIdFor = (id: string) => (own ? id.split("|")[0] : safeToolId(id, CALL_ID_MAX));
  const items: Item[] = [];
  let droppedThinking = false;
  for (const b of m.content) {
    if (b.type === "thinking") {
      const item = ownModel ? reasoningItem(b.thinkingSignature) : undefined;
      if (item) items.push(item);
      else if (b.thinking || b.thinkingSignature) droppedThinking = true;
    } else if (b.type === "text") {
      if (!b.text) continue;
      const sig = own ? parseTextSignature((b as TextContent).textSignature) : undefined;
      if (ownModel && sig) items.push({ type: "message", role: "assistant", id: sig.id, status: "completed", content: [{ type: "output_text", text: b.text, annotations: [] }], ...(sig.phase ? { phase: sig.phase } : {}) });
      else items.push({ role: "assistant", content: b.text, ...(sig?.phase ? { phase: sig.phase } : {}) });
    } else {
      const itemId = b.id.split("|")[1];
      items.push({ type: "function_call", call_id: callIdFor(b.id), name: b.name, arguments: JSON.stringify(b.arguments ?? {}), ...(ownModel && itemId?.startsWith("fc") ? { id: itemId } : {}) });
    }
  }
  // a reasoning item must lead to something of the same reply
  while (items.length > 0 && items[items.length - 1].type === "reasoning") {
    items.pop();
    notes.push("dropped a reasoning item that nothing followed");
  }
  if (droppedThinking) noteDroppedThinking(m, notes);
  if (items.length === 0) {
    noteEmpty(m, notes);
    return [];
  }
  for (const c of turn.calls) items.push({ type: "function_call_output", call_id: callIdFor(c.id), output: resultOutput(turn, c.id) });
  return items;
}

export function toResponsesInput(messages: readonly AgentMessage[], target: ResponsesTarget): ResponsesConversion {
  const notes: string[] = [];
  const input: Item[] = [];
  for (const turn of pairTurns(messages, notes)) {
    if (turn.kind === "user") input.push(userItem(turn.content));
    else input.push(...assistantItems(turn, target, notes));
  }
  return { input, notes };
}

export function toResponsesTools(tools: readonly ToolSpec[]): OpenAI.Responses.FunctionTool[] {
  return toolsForProviders(tools).map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema, strict: false }));
}
