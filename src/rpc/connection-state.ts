// What the server knows about one connected client: whether it said initialize, what it can
// answer (permissions, hooks), which sessions it follows, and its JSON-RPC peer for the
// server's own requests to it.
import type { HookName } from "../../protocol/index.js";
import type { ClientCalls, DaemonCalls, JsonRpcPeer } from "../../protocol/jsonrpc-peer.js";
import type { QuestionClient, SessionListener } from "../host/ports.js";
import type { ConnRelay } from "./relay.js";
import type { Connection } from "./transport.js";

export interface ConnState {
  conn: Connection;
  initialized: boolean;
  capabilities: { permissions: boolean; hooks: HookName[] };
  /** the sessions this client is subscribed to, with the listener that forwards their events */
  subs: Map<string, SessionListener>;
  peer: JsonRpcPeer<ClientCalls, DaemonCalls, ConnState>;
  /** this client as the host asks it a session's questions (joined to each session it follows) */
  questions: QuestionClient;
  /** another pith node (it authenticated with the cluster token): never relayed further */
  fromNode: boolean;
  /** sessions of this client that other nodes own (PostgreSQL store with a cluster token) */
  relay?: ConnRelay;
}
