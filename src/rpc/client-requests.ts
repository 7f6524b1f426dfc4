// The server's own requests to a client: requestPermission before a tool runs in "ask" mode, and
// the beforeCompact hook. The host keeps each question (src/host/live/pending-questions.ts) and asks
// every client following the session; this is one connection's side of it: it answers what its
// initialize capabilities said, and a question settled elsewhere is let go here (JSON-RPC has no
// request cancel: the client learns of it from the request_resolved event).
import type { QuestionClient } from "../host/ports.js";
import type { ConnState } from "./connection-state.js";

export function connectionQuestions(state: ConnState): QuestionClient {
  return {
    answers: (method) => (method === "requestPermission" ? state.capabilities.permissions : state.capabilities.hooks.includes(method)),
    ask: (method, params, withdrawn) => state.peer.request(method, params, { signal: withdrawn }),
  };
}
