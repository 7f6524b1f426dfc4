// Event dispatch: the server's notifications to typed listeners (`on`, `onAny`, `waitFor`), with
// the optional debug validation of their params.
import type { EventName, EventParams } from "../../protocol/index.js";
import { PithConnectionError, PithTimeoutError } from "./call-errors.js";
import type { CloseInfo } from "./transport.js";

export type EventListener<E extends EventName> = (params: EventParams<E>) => void;
/** (name, params), narrowed together: `if (name === "agent_end") params.stopReason` */
export type AnyEventArgs = { [E in EventName]: [name: E, params: EventParams<E>] }[EventName];
export type AnyEventListener = (...args: AnyEventArgs) => void;

/** Anything with zod's safeParse (the schemas in protocol/events.ts fit). */
export interface SafeParser {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}

export interface EventValidation {
  /** debug: validate each event's params with these schemas (pass `events` from protocol/) */
  validateEvents?: Partial<Record<string, SafeParser>>;
  /** called for an event that fails validateEvents (default: console.warn) */
  onInvalidEvent?: (name: string, params: unknown, error: unknown) => void;
}

export class EventDispatch {
  private readonly listeners = new Map<string, Set<(params: never) => void>>();
  private readonly anyListeners = new Set<AnyEventListener>();

  constructor(
    private readonly options: EventValidation,
    /** runs a listener, reporting what it throws */
    private readonly safely: (fn: () => void) => void,
  ) {}

  on<E extends EventName>(event: E, listener: EventListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const fn = listener as (params: never) => void;
    set.add(fn);
    return () => void set.delete(fn);
  }

  onAny(listener: AnyEventListener): () => void {
    this.anyListeners.add(listener);
    return () => void this.anyListeners.delete(listener);
  }

  /** Checks params against validateEvents, if it has a schema for the event. */
  validate(name: string, params: unknown): void {
    const validator = this.options.validateEvents?.[name];
    if (!validator) return;
    const r = validator.safeParse(params);
    if (r.success) return;
    if (this.options.onInvalidEvent) this.options.onInvalidEvent(name, params, r.error);
    else console.warn(`pith client: invalid ${name} event`, r.error);
  }

  /** Hands an event to its listeners, then to the onAny ones. */
  emit(name: string, params: unknown): void {
    const set = this.listeners.get(name);
    if (set) for (const fn of [...set]) this.safely(() => fn(params as never));
    for (const fn of [...this.anyListeners]) this.safely(() => (fn as (n: string, p: unknown) => void)(name, params));
  }
}

/** What waitFor needs of the client. */
export interface EventSource {
  on<E extends EventName>(event: E, listener: EventListener<E>): () => void;
  onClose(listener: (info: CloseInfo) => void): () => void;
}

/** PithClient.waitFor: the next matching event, a timeout, or the connection closing. */
export function waitForEvent<E extends EventName>(source: EventSource, event: E, predicate: ((params: EventParams<E>) => boolean) | undefined, timeoutMs: number): Promise<EventParams<E>> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      off();
      offClose();
      if (timer) clearTimeout(timer);
    };
    const off = source.on(event, (params) => {
      let match: boolean;
      try {
        match = predicate ? predicate(params) : true;
      } catch (err) {
        done();
        reject(err);
        return;
      }
      if (match) {
        done();
        resolve(params);
      }
    });
    const offClose = source.onClose((info) => {
      done();
      reject(new PithConnectionError(`connection closed while waiting for ${event}`, info));
    });
    if (timeoutMs > 0) timer = setTimeout(() => (done(), reject(new PithTimeoutError(`no ${event} within ${timeoutMs} ms`))), timeoutMs);
  });
}
