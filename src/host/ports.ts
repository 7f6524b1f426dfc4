// What the host needs from the fronts that serve it (the JSON-RPC server, ACP): clients that
// answer the session's questions (a permission, a beforeCompact hook: the host keeps each
// question until one answers, pending-questions.ts), and listeners for a session's events. Each takes a session id and the data it needs, never a live
// session, so a front cannot reach into the host and the host's modules import this file, not
// each other. The request shapes are the wire's (protocol/server-requests.ts), so a front
// forwards them without reshaping.
import type { ServerRequestName, ServerRequestParams } from "../../protocol/index.js";
import type { BeforeCompactDecision, PermissionOutcome } from "../../protocol/server-requests.js";
import type { EditorPorts } from "../tools/editor-ports.js";
import type { SessionEvent } from "./live/event-buffer.js";

/** auto: tools run; ask: a client is asked before each; readonly: writing tools are refused. */
export type { PermissionMode } from "../../protocol/messages.js";

/** allow, allowAlways, deny (an error result, the run goes on) or cancel (the run stops as an abort does). */
export type { PermissionOutcome } from "../../protocol/server-requests.js";

/** The tool call a client is asked about: {sessionId, runId?, toolCallId, toolName, args}. */
export type PermissionRequest = ServerRequestParams<"requestPermission">;

/** Asks a client that can answer; resolves "deny" when none can (or it fails, or times out). */
export type PermissionAsker = (request: PermissionRequest) => Promise<PermissionOutcome>;

/** What a compaction is about to do, as a client's beforeCompact hook sees it: {sessionId, reason, preparation}. */
export type BeforeCompactRequest = ServerRequestParams<"beforeCompact">;

/** The hook's answer: let pith summarize, cancel, or store the client's summary. */
export type { BeforeCompactDecision } from "../../protocol/server-requests.js";

/** A client's beforeCompact hook, when one declared it; "default" when none did. */
export type BeforeCompactHook = (request: BeforeCompactRequest) => Promise<BeforeCompactDecision>;

/**
 * One client of a front that can be asked a session's questions. A front joins it to a session
 * when it follows the session (subscribe, open, load) and has it leave when it stops (unsubscribe,
 * the connection closed); the host sends it every question of the session it answers, including
 * those already waiting when it joined.
 */
export interface QuestionClient {
  /** whether it answers this kind of question (its declared capabilities) */
  answers(method: ServerRequestName): boolean;
  /**
   * Sends the question (params carry its requestId); resolves with the client's answer as it came
   * (the host checks it), rejects when the client failed. `withdrawn` aborts once the question is
   * settled by another answer or withdrawn: the front lets go of its request (ACP cancels it).
   */
  ask<R extends ServerRequestName>(method: R, params: ServerRequestParams<R>, withdrawn: AbortSignal): Promise<unknown>;
}

/** A live session's questions to its clients, kept by the host until one answers (pending-questions.ts). */
export interface SessionQuestions {
  /** before a tool runs in "ask" mode; "deny" when nobody answers */
  requestPermission: PermissionAsker;
  /** the clients' beforeCompact hook: cancel, replace or let pith summarize ("default" when nobody answers) */
  beforeCompact: BeforeCompactHook;
  /** an abort or the session closing withdraws what it waits for */
  withdraw(reason: "aborted" | "closed"): void;
}

/** Gets each event as an object and as its ready-to-send JSON-RPC notification. */
export type SessionListener = (event: SessionEvent, wire: string) => void;

/** The editor of the client serving a session, when it lends its terminal (ACP); undefined: none. */
export type EditorLookup = (sessionId: string) => EditorPorts | undefined;
