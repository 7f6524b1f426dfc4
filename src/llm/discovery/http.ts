// The one way discovery talks to a server: JSON over fetch, with a deadline on the whole exchange
// (headers and body: a server that sends headers and then stalls must not hang pith), a cap on
// the body, and the provider's key and headers sent only to the provider's own origin. Redirects
// are not followed: a key must not travel to wherever a server points.
import type { DiscoveryFailure, DiscoveryTarget } from "./types.js";

export type JsonAnswer = { ok: true; status: number; body: unknown } | { ok: false; failure: DiscoveryFailure; reason: string; httpStatus?: number };

export interface JsonRequest {
  method?: "GET" | "POST";
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /** the largest body read (default 32 MiB: OpenRouter's model list is several MB) */
  maxBytes?: number;
}

/** The key and headers for `url`: only when it is on the provider's own origin. */
export function credentialsFor(target: DiscoveryTarget, url: string): Record<string, string> {
  let same = false;
  try {
    same = new URL(url).origin === new URL(target.baseUrl).origin;
  } catch {
    same = false;
  }
  if (!same) return {};
  return { ...target.headers, ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) };
}

async function readCapped(res: Response, maxBytes: number): Promise<string | undefined> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

function describe(err: unknown): string {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === "string") return `${e.code}${typeof e.message === "string" && e.message ? `: ${e.message}` : ""}`;
    e = e.cause as typeof e;
  }
  return err instanceof Error ? err.message : String(err);
}

export async function requestJson(target: DiscoveryTarget, url: string, req: JsonRequest): Promise<JsonAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), req.timeoutMs);
  const onAbort = () => controller.abort();
  req.signal?.addEventListener("abort", onAbort, { once: true });
  if (req.signal?.aborted) controller.abort();
  try {
    const headers: Record<string, string> = { accept: "application/json", ...credentialsFor(target, url) };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(url, { method: req.method ?? "GET", headers, body: req.body === undefined ? undefined : JSON.stringify(req.body), signal: controller.signal, redirect: "manual" });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, failure: "redirect", httpStatus: res.status, reason: `${url} redirects to ${res.headers.get("location") ?? "elsewhere"} (not followed: the key would go with it)` };
    }
    const text = await readCapped(res, req.maxBytes ?? 32 << 20);
    if (text === undefined) return { ok: false, failure: "bad_body", httpStatus: res.status, reason: `${url} answered more than ${req.maxBytes ?? 32 << 20} bytes` };
    if (!res.ok) {
      const failure: DiscoveryFailure = res.status === 401 || res.status === 403 ? "auth" : "http";
      return { ok: false, failure, httpStatus: res.status, reason: `${url} answered ${res.status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ""}` };
    }
    try {
      return { ok: true, status: res.status, body: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, failure: "bad_body", httpStatus: res.status, reason: `${url} did not answer JSON: ${text.trim().slice(0, 120)}` };
    }
  } catch (err) {
    if (controller.signal.aborted && !req.signal?.aborted) return { ok: false, failure: "timeout", reason: `${url} did not answer within ${req.timeoutMs} ms` };
    if (req.signal?.aborted) return { ok: false, failure: "timeout", reason: `discovery of ${url} was cancelled` };
    return { ok: false, failure: "network", reason: `cannot reach ${url} (${describe(err)})` };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onAbort);
  }
}
