// Errors the host raises, with the protocol's stable codes (protocol/errors.ts). A HostError's
// data has the shape protocol/errors.ts fixes for its code (ErrorData), so what the host sends
// and what a client is written against are one declaration.
import type { z } from "zod";
import { ErrorCodes, type ErrorCode as Code, type ErrorCodeName, type ErrorData } from "../../protocol/errors.js";

export { ErrorCodes as ErrorCode } from "../../protocol/errors.js";

/** Codes whose data the protocol fixes, but -32602: see HostErrorData. */
type FixedData = Exclude<keyof typeof ErrorData, "InvalidParams">;

/** Each code's data, keyed by the code (an indexed lookup keeps HostError<C> covariant in C). */
type DataByCode = {
  [K in ErrorCodeName as (typeof ErrorCodes)[K]]: K extends FixedData ? z.output<(typeof ErrorData)[K]> : Record<string, unknown> | undefined;
};

/**
 * The data a HostError of code `C` carries: the protocol's shape where it fixes one, else free.
 * -32602 is the exception: the protocol's ErrorTree is the params check's (validate.ts, thrown
 * by the server, never by the host); the host's own -32602s (an unknown model, a settings file)
 * carry a `reason` object instead.
 */
export type HostErrorData<C extends Code> = DataByCode[C];

export class HostError<C extends Code = Code> extends Error {
  constructor(
    readonly code: C,
    message: string,
    ...data: undefined extends HostErrorData<C> ? [data?: HostErrorData<C>] : [data: HostErrorData<C>]
  ) {
    super(message);
    this.name = "HostError";
    this.data = data[0] as HostErrorData<C>;
  }

  readonly data: HostErrorData<C>;

  /** Narrows to one code, and so to its data's shape. */
  is<K extends Code>(code: K): this is HostError<K> {
    return (this.code as Code) === code;
  }
}
