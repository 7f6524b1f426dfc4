// The context window in effect: the model table's, unless the endpoint said otherwise. A proxy, a
// region or plan limit, or an unknown model id can mean a smaller window than pith believes; the
// first overflow error tells, and the session remembers it (see session-settings.ts).
import type { OverflowSizes } from "../../llm/types.js";

/** Requests are kept this much under a limit learned without a number (the estimate may be low). */
const MARGIN = 0.9;

/**
 * The window an overflow error implies, if smaller than `current`: the maximum it names; else
 * the size of the rejected request (as the server counted it, or as estimated) less a margin.
 */
export function windowAfterOverflow(sizes: OverflowSizes | undefined, requestTokens: number | undefined, current: number): number | undefined {
  let next: number | undefined;
  if (sizes?.maximum !== undefined && sizes.maximum > 0) next = sizes.maximum;
  else {
    const seen = sizes?.tokens ?? requestTokens;
    if (seen !== undefined && seen > 0) next = Math.floor(Math.min(seen, current) * MARGIN);
  }
  return next !== undefined && next < current ? next : undefined;
}
