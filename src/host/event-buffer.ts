// Every session event gets a sequence number; the latest ones are kept so a client that lost
// its connection can ask for what it missed (subscribe {afterSeq}). Bounded by count and size.

export interface SessionEvent {
  type: string;
  sessionId: string;
  seq: number;
  [field: string]: unknown;
}

export class EventBuffer {
  private events: { event: SessionEvent; bytes: number }[] = [];
  private bytes = 0;
  private nextSeq = 1;

  constructor(
    private readonly maxEvents = 5000,
    private readonly maxBytes = 16 << 20,
  ) {}

  /** Numbers and keeps an event. */
  push(event: Omit<SessionEvent, "seq">): SessionEvent {
    const numbered = { ...event, seq: this.nextSeq++ } as SessionEvent;
    const size = JSON.stringify(numbered).length;
    this.events.push({ event: numbered, bytes: size });
    this.bytes += size;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      const dropped = this.events.shift()!;
      this.bytes -= dropped.bytes;
    }
    return numbered;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Events after `afterSeq`, or null when some of them are no longer kept. */
  since(afterSeq: number): SessionEvent[] | null {
    if (afterSeq >= this.lastSeq) return [];
    const first = this.events[0]?.event.seq ?? this.nextSeq;
    if (afterSeq + 1 < first) return null;
    return this.events.filter((e) => e.event.seq > afterSeq).map((e) => e.event);
  }
}
