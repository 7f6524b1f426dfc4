// Window discovery: what each kind of server says about the models it serves (parsers), asked
// over HTTP with deadlines (discover), kept per provider for the daemon's life (cache).
export { DiscoveryCache, type DiscoveryState } from "./cache.js";
export { discoverModels } from "./discover.js";
export type { DiscoveredModel } from "./types.js";
