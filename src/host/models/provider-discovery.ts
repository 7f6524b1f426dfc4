// What each configured server says it serves, asked once per provider for the daemon's life (see
// src/llm/discovery). The vendors' built-in providers are not asked: the catalog covers them, and
// OpenAI's listing names no windows. A provider without its key is not asked either.
import { DiscoveryCache, discoverModels, type DiscoveryState } from "../../llm/discovery/index.js";
import { hasKey, providerKey, type ResolvedProvider } from "../../llm/provider-config.js";
import type { DiscoveredModel } from "../../llm/discovery/index.js";

export class ProviderDiscovery {
  private readonly caches = new Map<string, DiscoveryCache>();

  /** The cache of a provider that is asked (undefined for one that is not), started on first use. */
  cacheFor(p: ResolvedProvider): DiscoveryCache | undefined {
    if (p.builtin || p.problem || !hasKey(p)) return undefined;
    const key = providerKey(p);
    let cache = this.caches.get(key);
    if (!cache) {
      const target = { api: p.api, baseUrl: p.baseUrl, apiKey: p.apiKey, headers: p.headers };
      this.caches.set(key, (cache = new DiscoveryCache((signal) => discoverModels(target, { signal }))));
      cache.start();
    }
    return cache;
  }

  /** What a provider's server listed, if it answered (no waiting). */
  models(p: ResolvedProvider | undefined): readonly DiscoveredModel[] | undefined {
    const state = p && this.cacheFor(p)?.state();
    return state?.status === "ok" ? state.models : undefined;
  }

  /**
   * Waits, at most `waitMs`, for each provider's first answer (listModels, a model being chosen);
   * undefined when there is nothing to wait for, so callers go on in the same turn of the loop.
   */
  ready(providers: Iterable<ResolvedProvider>, waitMs = 2000): Promise<void> | undefined {
    const waits = [...providers].flatMap((p) => {
      const cache = this.cacheFor(p);
      return cache && cache.state().status === "pending" ? [cache.get(waitMs)] : [];
    });
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
  }

  /** Each provider's state, for `pith models`; refreshed first when asked. */
  async states(providers: Iterable<ResolvedProvider>, refresh = false): Promise<Map<string, DiscoveryState | undefined>> {
    const out = new Map<string, DiscoveryState | undefined>();
    for (const p of providers) {
      const cache = this.cacheFor(p);
      if (cache && refresh) await cache.refresh();
      out.set(p.name, cache ? await cache.get() : undefined);
    }
    return out;
  }

  close(): void {
    for (const c of this.caches.values()) c.close();
  }
}
