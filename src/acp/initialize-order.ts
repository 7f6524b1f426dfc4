// Requests pipelined behind `initialize` are handled in the order they arrived.
//
// An editor may write `session/new` right behind `initialize`, before initialize's answer has
// come back: JSON-RPC allows it, and the requests arrive in order on one stream. The ACP SDK
// starts each incoming request as soon as it is read and refuses any request other than
// `initialize` with -32600 "must be initialized" until an initialize has been answered, so
// whether a pipelined request was refused depended on how many awaits initialize's handler took
// (one was enough to refuse it). Here the message stream the SDK reads from holds back whatever
// follows an `initialize` request until the answer to it has been written: a request that came
// after initialize is then handled after it, and one that came before any initialize is still
// refused by the SDK. Once an initialize has succeeded nothing is held any more; after a failed
// one, the next initialize is waited for the same way.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

const isInitializeRequest = (m: AnyMessage): m is AnyMessage & { id: unknown } => "method" in m && m.method === "initialize" && "id" in m;
const isResponse = (m: AnyMessage): m is AnyMessage & { id: unknown } => !("method" in m) && "id" in m && ("result" in m || "error" in m);

/** The stream the SDK connects to: the same messages, what follows an `initialize` read only after its answer went out. */
export function initializeInOrder(stream: Stream): Stream {
  let initialized = false;
  /** the initialize request waiting for its answer */
  let pending: { id: unknown; answered: () => void } | undefined;
  let held: Promise<void> | undefined;
  const reader = stream.readable.getReader();
  const writer = stream.writable.getWriter();
  const readable = new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        if (held) await held;
        held = undefined;
        const { value, done } = await reader.read();
        if (done) return controller.close();
        if (!initialized && isInitializeRequest(value)) {
          held = new Promise<void>((resolve) => (pending = { id: value.id, answered: resolve }));
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        pending?.answered();
        return reader.cancel(reason);
      },
    },
    // read one message at a time, when the SDK asks for it
    { highWaterMark: 0 },
  );
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (pending && isResponse(message) && message.id === pending.id) {
        // the SDK has recorded a successful initialize before its answer is written
        if ("result" in message) initialized = true;
        pending.answered();
        pending = undefined;
      }
      return writer.write(message);
    },
    close() {
      return writer.close();
    },
    abort(reason) {
      return writer.abort(reason);
    },
  });
  return { readable, writable };
}
