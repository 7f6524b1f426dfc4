// A session's event stream: numbered and kept (event-buffer.ts), fanned out to listeners, typed
// by the protocol's event table so the host cannot send a field the wire does not define. The
// agent's events are forwarded here; a provider's many small text, thinking and tool-argument
// deltas are merged per turn of the event loop, since each event costs every client a parse and
// a render. On a shared store an
// event waits until the lines written before it are durable (durable-sink.ts): a client never
// sees a message_end for an entry a crash of this node could still lose.
import type { EventName, EventParams } from "../../../protocol/index.js";
import type { AgentEvent } from "../../agent/events.js";
import type { DurableSink } from "../../session/durable-sink.js";
import { EventBuffer, type SessionEvent, type UnnumberedEvent } from "./event-buffer.js";
import type { SessionListener } from "../ports.js";

/** An event's own fields: sessionId and seq are added when it is numbered. */
export type EventFields<E extends EventName> = Omit<EventParams<E>, "sessionId" | "seq">;

/** Any event with its type, before it is numbered. */
export type WireEvent = { [E in EventName]: { type: E } & EventFields<E> }[EventName];

/** What subscribe did: events replayed, or a gap; where the stream stands now. */
export interface Subscription {
  replayed: number;
  gap: boolean;
  lastSeq: number;
  streamId: string;
}

type TextDelta = { runId: string; delta: { type: "text" | "thinking" | "toolcall_delta"; contentIndex: number; text: string } };

/** Where a part of the session (its compactions, its run policy) sends events: the session's stream. */
export interface SessionEmitter {
  emit<E extends EventName>(type: E, fields: EventFields<E>): void;
}

export class SessionEvents implements SessionEmitter {
  private readonly buffer = new EventBuffer();
  private readonly listeners = new Set<SessionListener>();
  /** text / thinking / tool-argument deltas that arrived in this turn of the event loop, not yet sent */
  private pendingDelta: TextDelta | null = null;
  private pendingScheduled = false;
  /** events waiting for the lines written before them (`mark`: the sink's accepted count then) */
  private held: { event: WireEvent; mark: number }[] = [];
  lastActivity = Date.now();

  constructor(
    private readonly sessionId: string,
    private readonly onListenerError: (err: unknown) => void,
    private readonly sink?: DurableSink,
  ) {}

  get streamId(): string {
    return this.buffer.streamId;
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /**
   * Adds a listener; with afterSeq, first replays the buffered events after it. An afterSeq from
   * another stream (before the session was reopened) cannot be replayed: gap.
   */
  subscribe(listener: SessionListener, afterSeq?: number, streamId?: string): Subscription {
    let replayed = 0;
    let gap = false;
    if (afterSeq !== undefined) {
      const missed = streamId !== undefined && streamId !== this.buffer.streamId ? null : this.buffer.since(afterSeq);
      if (missed === null) gap = true;
      else for (const e of missed) (listener(e.event, e.wire), replayed++);
    }
    this.listeners.add(listener);
    return { replayed, gap, lastSeq: this.buffer.lastSeq, streamId: this.buffer.streamId };
  }

  unsubscribe(listener: SessionListener): void {
    this.listeners.delete(listener);
  }

  clear(): void {
    this.listeners.clear();
  }

  emit<E extends EventName>(type: E, fields: EventFields<E>): void {
    this.publish({ ...fields, type } as WireEvent);
  }

  /** Sends one event now, or once what was written before it is durable (in order either way). */
  private publish(wireEvent: WireEvent): void {
    const sink = this.sink;
    if (!sink || sink.fenced || (this.held.length === 0 && sink.durable >= sink.accepted)) return void this.send(wireEvent);
    this.held.push({ event: wireEvent, mark: sink.accepted });
    if (this.held.length === 1) void this.release(sink);
  }

  /**
   * Sends held events as their lines become durable. If the sink is fenced first, the held events
   * describe what was never stored: they are dropped (the host tells clients the session moved).
   */
  private async release(sink: DurableSink): Promise<void> {
    while (this.held.length > 0) {
      try {
        await sink.whenDurable(this.held[0].mark);
      } catch {
        this.held = [];
        return;
      }
      while (this.held.length > 0 && this.held[0].mark <= sink.durable) this.send(this.held.shift()!.event);
    }
  }

  /** Numbers, keeps and sends one event. */
  private send(wireEvent: WireEvent): SessionEvent {
    const { event, wire } = this.buffer.push({ ...wireEvent, sessionId: this.sessionId } as UnnumberedEvent);
    this.lastActivity = Date.now();
    for (const l of this.listeners) {
      try {
        l(event, wire);
      } catch (err) {
        this.onListenerError(err);
      }
    }
    return event;
  }

  private flushDelta = (): void => {
    this.pendingScheduled = false;
    const pending = this.pendingDelta;
    if (!pending) return;
    this.pendingDelta = null;
    this.emit("message_update", pending);
  };

  /** An agent event, as the wire has it (message_update carries only the delta). */
  forward(event: AgentEvent): void {
    if (event.type === "message_update") {
      const d = event.delta;
      if ((d.type === "text" || d.type === "thinking" || d.type === "toolcall_delta") && d.text !== undefined) {
        // a provider sends a token or a few characters per delta, many per network read (a tool
        // call's arguments too: each piece of their JSON is appended in order, so merged is the same)
        const p = this.pendingDelta;
        if (p && p.runId === event.runId && p.delta.type === d.type && p.delta.contentIndex === d.contentIndex) {
          p.delta.text += d.text;
          return;
        }
        this.flushDelta();
        this.pendingDelta = { runId: event.runId, delta: { type: d.type, contentIndex: d.contentIndex, text: d.text } };
        if (!this.pendingScheduled) {
          this.pendingScheduled = true;
          setImmediate(this.flushDelta);
        }
        return;
      }
      this.flushDelta();
      this.emit("message_update", { runId: event.runId, delta: event.delta });
      return;
    }
    // everything else keeps its order after the deltas before it; the compiler checks each agent
    // event against the wire's definition here
    this.flushDelta();
    this.publish(event);
  }
}
