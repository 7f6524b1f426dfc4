// The providers a daemon can use: the two built in (Anthropic's Messages API and OpenAI's
// Responses API, each with its vendor's key variable) and the user's own entries (an
// OpenAI-compatible server, Ollama, a second Anthropic endpoint, ...). A provider's key is read
// from the variable its entry names, never from settings, and only that provider's requests carry it.
import type { z } from "zod";
import type { ProviderApi, ProviderSettings } from "../../protocol/settings.js";

type ProviderApiKind = z.output<typeof ProviderApi>;

/** A provider ready to be built: its API, where it is, and its key if the environment holds one. */
export interface ResolvedProvider {
  name: string;
  api: ProviderApiKind;
  /** always explicit: the SDKs would otherwise read their own variables (OPENAI_BASE_URL, ...) */
  baseUrl: string;
  headers: Record<string, string>;
  /** the variable that holds the key; absent: the server needs none */
  apiKeyEnv?: string;
  apiKey?: string;
  builtin: boolean;
  /** why it cannot be used as configured (e.g. an OpenAI-compatible entry without a baseUrl) */
  problem?: string;
}

/** Where each API is when an entry does not say (an OpenAI-compatible server has no default). */
const DEFAULT_BASE_URL: Readonly<Record<ProviderApiKind, string | undefined>> = {
  anthropic: "https://api.anthropic.com",
  "openai-responses": "https://api.openai.com/v1",
  "openai-completions": undefined,
  ollama: "http://127.0.0.1:11434",
};

/** Whether requests can be made: the key is there, or none is needed. */
export function hasKey(p: ResolvedProvider): boolean {
  return p.apiKeyEnv === undefined || p.apiKey !== undefined;
}

interface Builtin {
  api: ProviderApiKind;
  apiKeyEnv: string;
  baseUrlEnv: string;
}

/** Built-in providers need no settings entry; an entry of the same name changes their URL or headers. */
const BUILTIN_PROVIDERS: Readonly<Record<string, Builtin>> = {
  anthropic: { api: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY", baseUrlEnv: "ANTHROPIC_BASE_URL" },
  openai: { api: "openai-responses", apiKeyEnv: "OPENAI_API_KEY", baseUrlEnv: "OPENAI_BASE_URL" },
};

/** The providers in effect: built-ins, then the user's entries (over a built-in of the same name). */
export function resolveProviders(entries: Readonly<Record<string, z.output<typeof ProviderSettings>>> | undefined, env: NodeJS.ProcessEnv): Map<string, ResolvedProvider> {
  const out = new Map<string, ResolvedProvider>();
  const keyOf = (name: string | undefined) => (name === undefined ? undefined : env[name] || undefined);
  for (const [name, b] of Object.entries(BUILTIN_PROVIDERS)) {
    out.set(name, { name, api: b.api, baseUrl: env[b.baseUrlEnv] || (DEFAULT_BASE_URL[b.api] as string), headers: {}, apiKeyEnv: b.apiKeyEnv, apiKey: keyOf(b.apiKeyEnv), builtin: true });
  }
  for (const [name, e] of Object.entries(entries ?? {})) {
    const base = out.get(name);
    // a built-in keeps its key variable unless the entry names another: its key is the vendor's
    const apiKeyEnv = e.apiKeyEnv ?? (base?.api === e.api ? base.apiKeyEnv : undefined);
    const baseUrl = e.baseUrl ?? (base?.api === e.api ? base.baseUrl : DEFAULT_BASE_URL[e.api]);
    out.set(name, {
      name,
      api: e.api,
      baseUrl: (baseUrl ?? "").replace(/\/+$/, ""),
      headers: { ...e.headers },
      apiKeyEnv,
      apiKey: keyOf(apiKeyEnv),
      builtin: base !== undefined,
      ...(baseUrl === undefined ? { problem: `provider "${name}" (${e.api}) needs a "baseUrl" in settings.json` } : {}),
    });
  }
  return out;
}

/** A stable key for a provider's configuration: an instance is rebuilt when its settings change. */
export function providerKey(p: ResolvedProvider): string {
  return JSON.stringify([p.name, p.api, p.baseUrl, p.headers, p.apiKeyEnv ?? "", p.apiKey ?? ""]);
}
