// `pith acp`'s stdout as the ACP SDK writes it: one web WritableStream over process.stdout that
// hands each message on at once, so that everything waiting for the editor waits in one place
// (stdout's own buffer), where it can be counted.
//
// Why not Writable.toWeb(process.stdout): its writes resolve only once stdout has taken them, so
// with an editor that stopped reading the SDK queued every later message in its own promise chain,
// out of sight, for as long as the process lived. Here an editor that leaves more than
// DEFAULT_MAX_PENDING_CHARS unread is treated as gone, as the JSON-RPC stdio transport treats its
// reader (rpc/ordered-writer.ts): said once on stderr, the stream fails, and acp-mode.ts shuts down.
import type { Logger } from "pino";
import { DEFAULT_MAX_PENDING_CHARS, ReaderNotReading } from "../rpc/ordered-writer.js";

export interface BoundedOutputOptions {
  log: Logger;
  /** called once when the editor has left too much unread */
  onAbandoned(): void;
}

export function boundedAcpOutput(output: NodeJS.WriteStream, opts: BoundedOutputOptions): WritableStream<Uint8Array> {
  const max = DEFAULT_MAX_PENDING_CHARS;
  let abandoned = false;
  return new WritableStream<Uint8Array>({
    write(chunk) {
      if (abandoned) throw new ReaderNotReading(output.writableLength);
      const pending = output.writableLength + chunk.byteLength;
      if (pending > max) {
        abandoned = true;
        opts.log.warn({ pendingBytes: pending, maxPendingBytes: max }, "acp: the editor is not reading its output; shutting down");
        opts.onAbandoned();
        throw new ReaderNotReading(pending);
      }
      // not awaited: what the editor has not read yet waits in stdout's buffer, counted above
      output.write(chunk);
    },
  });
}
