// How a failed model call reads to the user. A provider's own text ("connection failed: fetch
// failed", "invalid x-api-key") says neither which provider nor where it was asked, and a user
// with several configured cannot tell what to fix: the host knows both, so the text it sends in
// retry_start and in the run's error names them and what to check.
import { networkCode, UNREACHABLE } from "../../llm/error-patterns.js";
import type { ProviderError } from "../../llm/types.js";
import type { RunError } from "../../agent/events.js";

/** The provider a model is served by, and where (undefined: the offline script, which fails in no such way). */
export interface ProviderPlace {
  name: string;
  baseUrl: string;
}

const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name did not resolve",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "timed out connecting",
  UND_ERR_CONNECT_TIMEOUT: "timed out connecting",
};

const MODELS_HINT = "`pith models` lists what pith can reach";

/**
 * The run's error for a provider that cannot be reached or refuses, worded with where the call
 * went; undefined for any other failure (its own text says what happened, and its code stays).
 */
export function providerFailure(error: ProviderError, place: ProviderPlace | undefined): RunError | undefined {
  if (!place) return undefined;
  const where = `provider ${place.name} at ${place.baseUrl}`;
  let message: string;
  if (error.type === UNREACHABLE) {
    const code = networkCode(error);
    const why = (code && NETWORK_WORDS[code]) ?? error.message;
    message = `cannot reach ${where} (${why}); is the server running? ${MODELS_HINT}`;
  } else if (error.errorClass === "auth") {
    message = `${where} refused the request${error.status ? ` (${String(error.status)})` : ""}: ${error.message}; check the provider's key. ${MODELS_HINT}`;
  } else {
    return undefined;
  }
  return { message, errorClass: error.errorClass, status: error.status, provider: { name: place.name, baseUrl: place.baseUrl } };
}
