// Errors the host raises, with the protocol's stable codes (protocol/errors.ts).
export { ErrorCodes as ErrorCode } from "../../protocol/errors.js";

export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "HostError";
  }
}
