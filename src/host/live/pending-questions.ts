// The questions sessions ask their clients (requestPermission before a tool runs in "ask" mode,
// the beforeCompact hook) and the clients that can answer them. A question belongs to its
// session, not to the client it was first sent to (a tab reloads, a laptop lid closes): it goes
// to every client following the session that can answer, and again to each that joins while it
// waits; the first valid answer wins, and the others see it withdrawn (request_resolved). The
// safe default (deny; let pith summarize) holds only when no client that can answer has followed
// the session for the grace period, when nobody answered within the timeout since it was last
// sent, or when the clients asked failed. An abort withdraws what waits (cancel; default), and
// so does the session closing, after which nothing of it is sent again.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { z } from "zod";
import { serverRequests, type PendingRequest, type RequestOutcome, type RequestResolution, type ServerRequestName, type ServerRequestParams } from "../../../protocol/index.js";
import type { QuestionClient, SessionQuestions } from "../ports.js";

type Answer<R extends ServerRequestName> = z.output<(typeof serverRequests)[R]["result"]>;

/** The withdrawal a session's clients are told of (the request_resolved event's fields). */
export interface Resolved {
  requestId: string;
  method: ServerRequestName;
  outcome: RequestOutcome;
  reason: RequestResolution;
}

export interface AskOptions {
  /** how long it waits once no client that can answer follows the session (settings' permissionGraceSeconds) */
  graceMs: number;
  /** tells the session's clients it ended (emits request_resolved) */
  resolved(fields: Resolved): void;
}

/**
 * How long a question waits for an answer after it was last sent to a client: a client that shows
 * it and nobody answers (a human away, a script that declared it answers and does not). Counted
 * from the last sending, so a client that joins late gets the whole time.
 */
const ANSWER_TIMEOUT_MS: Record<ServerRequestName, number> = { requestPermission: 120_000, beforeCompact: 30_000 };

/** What holds when nobody answers. */
const SAFE: { [R in ServerRequestName]: Answer<R> } = { requestPermission: { outcome: "deny" }, beforeCompact: { action: "default" } };
/** What an abort or the session closing answers: the turn is cancelled; the compaction stops on its own abort. */
const WITHDRAWN: { [R in ServerRequestName]: Answer<R> } = { requestPermission: { outcome: "cancel" }, beforeCompact: { action: "default" } };

interface Question {
  requestId: string;
  method: ServerRequestName;
  sessionId: string;
  params: ServerRequestParams<ServerRequestName>;
  options: AskOptions;
  /** the clients it was sent to and not yet heard from, each with the signal that withdraws it */
  deliveries: Map<QuestionClient, AbortController>;
  /** clients that failed it (an error, an answer that is not one): not asked again unless they join again */
  failed: Set<QuestionClient>;
  /** every client it was sent to, and whether it waited with nobody to ask: who may still show it */
  sentTo: Set<QuestionClient>;
  waited: boolean;
  graceTimer?: NodeJS.Timeout;
  answerTimer?: NodeJS.Timeout;
  resolve(answer: unknown): void;
}

export class PendingQuestions {
  /** by session: the clients following it that may be asked */
  private readonly clients = new Map<string, Set<QuestionClient>>();
  /** by session and kind: when the last client that could answer it left (the grace period counts from there) */
  private readonly lastLeft = new Map<string, Map<ServerRequestName, number>>();
  /** by requestId, in the order asked */
  private readonly questions = new Map<string, Question>();

  constructor(private readonly log: Logger) {}

  /** Asks the session's clients; resolves with the first valid answer, or the safe default (see the file's comment). */
  private ask<R extends ServerRequestName>(method: R, params: ServerRequestParams<R>, options: AskOptions): Promise<Answer<R>> {
    return new Promise((resolve) => {
      const requestId = randomUUID();
      const q: Question = {
        requestId,
        method,
        sessionId: params.sessionId,
        params: { ...params, requestId },
        options,
        deliveries: new Map(),
        failed: new Set(),
        sentTo: new Set(),
        waited: false,
        resolve: resolve as (answer: unknown) => void,
      };
      this.questions.set(requestId, q);
      for (const client of this.clients.get(q.sessionId) ?? []) if (client.answers(method)) this.deliver(q, client);
      if (q.deliveries.size === 0) this.whenNoneCanAnswer(q);
    });
  }

  /** A client follows the session: it is sent what waits there that it can answer (again, if it had it). */
  join(sessionId: string, client: QuestionClient): void {
    let set = this.clients.get(sessionId);
    if (!set) this.clients.set(sessionId, (set = new Set()));
    set.add(client);
    for (const q of this.of(sessionId)) if (client.answers(q.method)) this.deliver(q, client);
  }

  /** A client stops following the session (unsubscribed, its connection closed): not a failure, its questions wait for others. */
  leave(sessionId: string, client: QuestionClient): void {
    const set = this.clients.get(sessionId);
    if (!set?.delete(client)) return;
    if (set.size === 0) this.clients.delete(sessionId);
    const now = Date.now();
    for (const method of Object.keys(serverRequests) as ServerRequestName[]) {
      if (!client.answers(method)) continue;
      let left = this.lastLeft.get(sessionId);
      if (!left) this.lastLeft.set(sessionId, (left = new Map()));
      left.set(method, now);
    }
    for (const q of this.of(sessionId)) {
      q.deliveries.get(client)?.abort();
      q.deliveries.delete(client);
      q.failed.delete(client);
      this.whenNoneCanAnswer(q);
    }
  }

  /** What the session waits for, as getState lists it (absent when nothing waits). */
  stateOf(sessionId: string): { pendingRequests?: PendingRequest[] } {
    const waiting = this.of(sessionId).map((q) => ({ requestId: q.requestId, method: q.method, params: q.params }) as PendingRequest);
    return waiting.length > 0 ? { pendingRequests: waiting } : {};
  }

  /** The live session's side: its questions, asked with its grace period and announced on its events, and their withdrawal. */
  session(sessionId: string, options: AskOptions): SessionQuestions {
    return {
      requestPermission: async (request) => (await this.ask("requestPermission", request, options)).outcome,
      beforeCompact: (request) => this.ask("beforeCompact", request, options),
      withdraw: (reason) => this.withdraw(sessionId, reason),
    };
  }

  /** Ends what the session waits for, answered as an abort answers; closed: its clients are forgotten too. */
  private withdraw(sessionId: string, reason: "aborted" | "closed"): void {
    for (const q of this.of(sessionId)) this.settle(q, WITHDRAWN[q.method], reason);
    if (reason !== "closed") return;
    this.clients.delete(sessionId);
    this.lastLeft.delete(sessionId);
  }

  private of(sessionId: string): Question[] {
    return [...this.questions.values()].filter((q) => q.sessionId === sessionId);
  }

  private deliver(q: Question, client: QuestionClient): void {
    q.deliveries.get(client)?.abort(); // a client that joins again gets it again: its earlier copy is let go
    const withdrawn = new AbortController();
    q.deliveries.set(client, withdrawn);
    q.failed.delete(client);
    q.sentTo.add(client);
    clearTimeout(q.graceTimer);
    q.graceTimer = undefined;
    clearTimeout(q.answerTimer);
    q.answerTimer = this.timer(ANSWER_TIMEOUT_MS[q.method], () => {
      this.log.warn({ sessionId: q.sessionId, requestId: q.requestId }, `${q.method} was not answered in time; taking the safe default`);
      this.settle(q, SAFE[q.method], "unanswered");
    });
    let sent: Promise<unknown>;
    try {
      sent = client.ask(q.method, q.params, withdrawn.signal);
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      (raw) => {
        if (!this.current(q, withdrawn)) return;
        const parsed = (serverRequests[q.method].result as z.ZodType).safeParse(raw);
        if (parsed.success) return this.settle(q, parsed.data, "answered", client);
        this.failedBy(q, client, new Error(`not an answer: ${parsed.error.message}`));
      },
      (err) => {
        if (this.current(q, withdrawn)) this.failedBy(q, client, err);
      },
    );
  }

  /** The delivery is still the one waited for: the question is open and that copy was not let go. */
  private current(q: Question, withdrawn: AbortController): boolean {
    return this.questions.get(q.requestId) === q && !withdrawn.signal.aborted;
  }

  private failedBy(q: Question, client: QuestionClient, err: unknown): void {
    this.log.warn({ err, sessionId: q.sessionId, requestId: q.requestId }, `${q.method} failed at a client`);
    q.deliveries.delete(client);
    q.failed.add(client);
    this.whenNoneCanAnswer(q);
  }

  /**
   * Nobody left to wait for? A client here that failed it: the safe default now, as a failed
   * answer always was. Nobody here: the grace period from when the last one that could answer
   * left; at once when none ever followed the session (a script, a client without the capability).
   */
  private whenNoneCanAnswer(q: Question): void {
    if (q.deliveries.size > 0 || q.graceTimer) return;
    const here = [...(this.clients.get(q.sessionId) ?? [])].filter((c) => c.answers(q.method));
    if (here.some((c) => !q.failed.has(c))) return;
    clearTimeout(q.answerTimer);
    q.answerTimer = undefined;
    const left = this.lastLeft.get(q.sessionId)?.get(q.method);
    const remaining = here.length > 0 || left === undefined ? 0 : left + q.options.graceMs - Date.now();
    if (remaining <= 0) return this.settle(q, SAFE[q.method], "unanswered");
    q.waited = true;
    q.graceTimer = this.timer(remaining, () => {
      this.log.info({ sessionId: q.sessionId, requestId: q.requestId }, `no client that answers ${q.method} came back in the grace period; taking the safe default`);
      this.settle(q, SAFE[q.method], "unanswered");
    });
  }

  private settle(q: Question, answer: unknown, reason: RequestResolution, by?: QuestionClient): void {
    if (this.questions.get(q.requestId) !== q) return;
    this.questions.delete(q.requestId);
    clearTimeout(q.graceTimer);
    clearTimeout(q.answerTimer);
    for (const [client, withdrawn] of q.deliveries) if (client !== by) withdrawn.abort();
    q.deliveries.clear();
    q.resolve(answer);
    // announced where another client may still show it: not when the one client asked answered it, nor when nobody had it
    const onlyAsker = reason === "answered" && q.sentTo.size === 1 && !q.waited;
    if (onlyAsker || (q.sentTo.size === 0 && !q.waited)) return;
    const outcome = q.method === "requestPermission" ? (answer as Answer<"requestPermission">).outcome : (answer as Answer<"beforeCompact">).action;
    q.options.resolved({ requestId: q.requestId, method: q.method, outcome, reason });
  }

  private timer(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  }
}
