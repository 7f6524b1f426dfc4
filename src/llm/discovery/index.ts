// Window discovery: what each kind of server says about the models it serves (parsers), asked
// over HTTP with deadlines (discover), kept per provider for the daemon's life (cache).
export { DiscoveryCache, type DiscoveryCacheOptions, type DiscoveryState } from "./cache.js";
export { discoverModels, serverRoot } from "./discover.js";
export { parseOllamaShow, parseOllamaTags } from "./parse-ollama.js";
export { parseLlamaCppProps, parseLmStudioModels, parseOpenAiModels, serverKindOf } from "./parse-openai.js";
export type { DiscoveredModel, DiscoveryFailure, DiscoveryOptions, DiscoveryResult, DiscoveryTarget, ServerKind } from "./types.js";
