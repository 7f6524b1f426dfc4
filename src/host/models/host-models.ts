// The daemon's side of models: one client per provider (provider-pool.ts), what each server says
// it serves (provider-discovery.ts), and the models a session's settings make available.
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { DEMO_MODEL, SCRIPTED_MODEL } from "../../llm/models.js";
import { DemoProvider, demoPace } from "../../llm/demo-model.js";
import { ScriptedProvider, scriptSchema, type Script } from "../../llm/scripted.js";
import { capReplies } from "../../llm/reply-cap.js";
import type { ModelInfo, Provider } from "../../llm/types.js";
import type { DiscoveryState } from "../../llm/discovery/index.js";
import type { ResolvedProvider } from "../../llm/provider-config.js";
import { ProviderDiscovery } from "./provider-discovery.js";
import { ProviderPool } from "./provider-pool.js";
import { sessionModels, type SessionModels } from "./session-models.js";
import type { Settings } from "../policy/settings.js";

/**
 * PITH_OFFLINE_SCRIPT: a JSON file of scripted turns ({"turns": [...]}, llm/scripted.ts) the
 * offline model replays instead of the demo's own steps: for frontend work and tests that need
 * the same turns every time. A file that cannot be read or parsed is an error the session reports.
 */
function scriptFromFile(file: string | undefined): Script | undefined {
  if (!file) return undefined;
  return scriptSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}

export class HostModels {
  private readonly pool: ProviderPool;
  private readonly discovery = new ProviderDiscovery();

  constructor(
    logger: Logger,
    /** the offline model's script; without one, the demo model */
    private readonly script: Script | undefined,
    private readonly env: () => NodeJS.ProcessEnv,
  ) {
    this.pool = new ProviderPool(logger);
  }

  /** The providers and models `settings` make available (discovery answers as far as they came). */
  for(settings: Settings): SessionModels {
    // a replayed script's usage is sized for the scripted window; the demo model's own steps for its smaller one
    const offline = this.script || this.env().PITH_OFFLINE_SCRIPT ? SCRIPTED_MODEL : DEMO_MODEL;
    return sessionModels(settings, this.env(), (p) => this.discovery.models(p), offline);
  }

  /**
   * What one session's models are served by: the shared clients, and its own place in the offline
   * script. Every reply is capped at `maxReplyBytes` here, the one place all of them pass through.
   */
  providersOfSession(providers: ReadonlyMap<string, ResolvedProvider>, maxReplyBytes: number): (model: ModelInfo) => Provider {
    let scripted: Provider | undefined;
    const offline = () => {
      const script = this.script ?? scriptFromFile(this.env().PITH_OFFLINE_SCRIPT);
      return script ? new ScriptedProvider(script) : new DemoProvider(demoPace(this.env()));
    };
    return (model) => capReplies(model.provider === SCRIPTED_MODEL.provider ? (scripted ??= offline()) : this.pool.providerFor(model, providers), maxReplyBytes);
  }

  /** Waits (bounded) for the first answer of each server `settings` configure; undefined: nothing to wait for. */
  ready(settings: Settings, waitMs?: number): Promise<void> | undefined {
    return this.discovery.ready(this.for(settings).providers.values(), waitMs);
  }

  /** Each configured provider's discovery state (undefined: not asked); `refresh` asks again first. */
  states(settings: Settings, refresh = false): Promise<Map<string, DiscoveryState | undefined>> {
    return this.discovery.states(this.for(settings).providers.values(), refresh);
  }

  close(): void {
    this.discovery.close();
  }
}
