// Every session event gets a sequence number; the latest ones are kept so a client that lost
// its connection can ask for what it missed (subscribe {afterSeq}). Bounded by count and size.
// Numbering starts at 1 for each live incarnation of a session, so each buffer has a stream id:
// an afterSeq counted in another stream says nothing about this one.
import { randomUUID } from "node:crypto";
import type { EventLine, EventName, EventParams } from "../../../protocol/index.js";

/** A numbered event, typed by the protocol's event table (a listener narrows on `type`). */
export type SessionEvent = EventLine;

/** An event of the session before it is numbered. */
export type UnnumberedEvent = { [E in EventName]: { type: E } & Omit<EventParams<E>, "seq"> }[EventName];

/** An event and its JSON-RPC notification text, serialized once for every subscriber. */
export interface BufferedEvent {
  event: SessionEvent;
  wire: string;
}

/** The notification a client receives: method = event type, params = the rest. */
function notification(event: SessionEvent): string {
  const { type, ...params } = event;
  return `{"jsonrpc":"2.0","method":${JSON.stringify(type)},"params":${JSON.stringify(params)}}`;
}

export class EventBuffer {
  private events: BufferedEvent[] = [];
  private bytes = 0;
  private nextSeq = 1;
  readonly streamId = randomUUID();

  constructor(
    private readonly maxEvents = 5000,
    private readonly maxBytes = 16 << 20,
  ) {}

  /** Numbers, serializes and keeps an event. */
  push(event: UnnumberedEvent): BufferedEvent {
    // the spread loses the link between `type` and the fields (TypeScript does not follow it through a union)
    const numbered = { ...event, seq: this.nextSeq++ } as SessionEvent;
    const buffered = { event: numbered, wire: notification(numbered) };
    this.events.push(buffered);
    this.bytes += buffered.wire.length;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      const dropped = this.events.shift()!;
      this.bytes -= dropped.wire.length;
    }
    return buffered;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Events after `afterSeq`, or null when some of them are no longer kept. */
  since(afterSeq: number): BufferedEvent[] | null {
    if (afterSeq >= this.lastSeq) return [];
    const first = this.events[0]?.event.seq ?? this.nextSeq;
    if (afterSeq + 1 < first) return null;
    return this.events.filter((e) => e.event.seq > afterSeq);
  }
}
