// The protocol's version. `initialize` carries it both ways; a client asking for another one gets
// -32602 with the supported versions named.

/** The version this package describes. Bumped only for changes old clients cannot ignore. */
export const PROTOCOL_VERSION = 1;

/** Versions a server built from this package accepts in `initialize`. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [PROTOCOL_VERSION];
