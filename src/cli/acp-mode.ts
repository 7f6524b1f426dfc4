// `pith acp`: an editor spawns pith and speaks ACP over its stdin / stdout (one JSON message per
// line; stdout carries nothing else, logs go to stderr). The editor owns the process: its stdin
// closing, or SIGTERM, ends it after the sessions are closed (runs aborted and stored as aborted,
// files synced, locks released), within a few seconds even if something hangs.
import * as acp from "@agentclientprotocol/sdk";
import { format } from "node:util";
import type { Logger } from "pino";
import { acpAgent } from "../acp/acp-agent.js";
import { initializeInOrder } from "../acp/initialize-order.js";
import type { Settings } from "../host/policy/settings.js";
import { hostOrExit } from "./daemon.js";
import { boundedAcpInput, SDK_MAX_MESSAGE_BYTES } from "./acp-stdin.js";
import { boundedAcpOutput } from "./acp-stdout.js";
import type { StoreConfig } from "./store-config.js";

const SHUTDOWN_LIMIT_MS = 4_000;

export interface AcpModeOptions {
  log: Logger;
  /** settings from command-line flags */
  flags?: Settings;
  /** the session store (default: files under $PITH_HOME/sessions) */
  store?: StoreConfig;
}

export async function runAcpMode(opts: AcpModeOptions): Promise<number> {
  const { log } = opts;
  routeConsole(log);
  const host = await hostOrExit(log, 0, opts.flags, opts.store);
  if (!host) return 1;
  // stdin through a bounded line reader (acp-stdin.ts): an oversize message is answered, not fatal.
  // Its answer is one whole line on process.stdout, where the SDK also writes whole lines.
  const input = boundedAcpInput(process.stdin, { log, answer: (line) => process.stdout.write(`${line}\n`) });
  // an editor that stops reading: the output stdout still buffers for it would keep the process
  // alive for as long as it holds the pipe open, so the process exits once the sessions are closed
  const output = boundedAcpOutput(process.stdout, { log, onAbandoned: () => void shutdown("the editor is not reading its output").then((code) => process.exit(code)) });
  const stream = acp.ndJsonStream(output, input, { maxMessageBytes: SDK_MAX_MESSAGE_BYTES });
  // requests pipelined behind initialize wait for its answer instead of being refused
  const connection = acpAgent(host, log).connect(initializeInOrder(stream));
  let stopping: Promise<number> | undefined;
  const shutdown = (why: string): Promise<number> =>
    (stopping ??= (async () => {
      log.info({ why }, "shutting down");
      const limit = setTimeout(() => {
        log.error("sessions did not close in time; exiting");
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS);
      limit.unref();
      let code = 0;
      try {
        await host.shutdown();
      } catch (err) {
        log.error({ err }, "shutdown failed");
        code = 1;
      }
      clearTimeout(limit);
      connection.close();
      process.stdin.destroy();
      return code;
    })());
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  await connection.closed.catch(() => undefined);
  return shutdown("stdin closed");
}

/** What the SDK says with console.error for a peer's mistakes, not ours: debug, not an error. */
const PEER_NOISE = /^(Got response to unknown request|Invalid message)\b/;

/**
 * The SDK reports through console.error / console.warn (a response to a request it no longer
 * waits for, an invalid message, ...), which an editor shows as errors: into the logger instead,
 * the peer's mistakes at debug, the rest at their own level. (stdout stays ACP only either way.)
 */
function routeConsole(log: Logger): void {
  console.error = (...args: unknown[]) => {
    const text = format(...args);
    if (PEER_NOISE.test(text)) log.debug(text);
    else log.error(text);
  };
  console.warn = (...args: unknown[]) => log.warn(format(...args));
}
