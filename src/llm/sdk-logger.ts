// The vendor SDKs log through this: their default logger is `console`, which prints to stdout,
// and stdout belongs to the protocol. Everything goes to pino (stderr) instead.
import type { Logger } from "pino";

export interface SdkLogger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

export function sdkLogger(log: Logger | undefined): SdkLogger {
  const to = (level: "debug" | "info" | "warn" | "error") => (message: string, ...rest: unknown[]) => log?.[level]({ sdk: rest.length > 0 ? rest : undefined }, message);
  return { debug: to("debug"), info: to("info"), warn: to("warn"), error: to("error") };
}
