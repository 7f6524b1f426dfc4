// Tool-call ids cross providers when a session changes model: an id one API made must be valid
// for the next. Each API has its own rule (Anthropic: ^[a-zA-Z0-9_-]+$ and at most 64
// characters; OpenAI Chat Completions: at most 40; Responses call ids: at most 64), so an id is
// rewritten only when it breaks the target's rule, and always the same way: a call and its
// result, converted separately, still carry the same id.
import { createHash } from "node:crypto";

const SAFE = /^[A-Za-z0-9_-]+$/;

export function safeToolId(id: string, maxLength: number): string {
  if (SAFE.test(id) && id.length <= maxLength) return id;
  const clean = id.replace(/[^A-Za-z0-9_-]/g, "_");
  if (clean.length > 0 && clean.length <= maxLength) return clean;
  // too long: keep a readable prefix and make it unique with a hash of the whole original id
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 16);
  return `${clean.slice(0, Math.max(0, maxLength - hash.length - 1))}_${hash}`;
}
