// The per-transport state the shared daemon flows (daemon-flows.ts) work with: the transport's
// client and fake server, and the sessions each test opens, all closed again after every test.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { FakeAnthropic } from "./fake-anthropic.js";
import type { ParamsOf, ResultOf } from "../../protocol/index.js";
import { agentEnd, type Ev, type RpcPeer } from "./daemon-client.js";

export interface FlowContext {
  fake: FakeAnthropic;
  /** an initialized client */
  peer: RpcPeer;
  /** the sessions' working directory; holds a.txt ("hello from a.txt") */
  cwd: string;
}

/** Sends fake requests until the queue is empty (after a failed test left scenarios behind). */
export async function drainFake(fake: FakeAnthropic): Promise<void> {
  for (let i = 0; i < 20 && fake.remaining() > 0; i++) {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 300);
    try {
      const r = await fetch(`${fake.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "drain", stream: false, messages: [] }), signal: ac.signal });
      await r.text();
    } catch {
      /* a hang scenario: aborted */
    } finally {
      clearTimeout(timer);
    }
  }
}

/** One transport's flows: its name (in every test's title), its context and the sessions opened. */
export class FlowSessions {
  private readonly opened: string[] = [];

  /** `ctx` is called inside each test (after the file's before hook). */
  constructor(
    readonly transport: string,
    readonly ctx: () => FlowContext,
  ) {}

  async newSession(params: ParamsOf<"createSession"> = {}): Promise<ResultOf<"createSession">> {
    const { peer, cwd } = this.ctx();
    const r = await peer.request("createSession", { cwd, ...params });
    this.opened.push(r.sessionId);
    return r;
  }

  async waitIdle(sessionId: string): Promise<ResultOf<"getState">> {
    const { peer } = this.ctx();
    for (let i = 0; i < 100; i++) {
      const s = await peer.request("getState", { sessionId });
      if (!s.isRunning && !s.isCompacting) return s;
      await sleep(20);
    }
    assert.fail(`session ${sessionId} is still busy after 2 s`);
  }

  /** Runs a prompt whose replies are the given scenarios and checks it ended with stop. */
  async exchange(sessionId: string, text: string, ...scenarios: Parameters<FakeAnthropic["enqueue"]>): Promise<Ev[]> {
    const { peer, fake } = this.ctx();
    fake.enqueue(...scenarios);
    const run = await peer.runPrompt(sessionId, text);
    assert.equal(agentEnd(run.events).stopReason, "stop", `run of "${text.slice(0, 30)}" ended: ${JSON.stringify(run.events.at(-1))}`);
    return run.events;
  }

  /** After each test: leave nothing running into the next one, whatever happened in this one. */
  async closeAll(): Promise<void> {
    const { peer, fake } = this.ctx();
    for (const sessionId of this.opened.splice(0)) {
      if (peer.isClosed) break;
      await peer.call("abort", { sessionId }).catch(() => undefined);
      await this.waitIdle(sessionId).catch(() => undefined);
      await peer.call("closeSession", { sessionId }).catch(() => undefined);
    }
    await drainFake(fake);
    const violations = peer.violations.splice(0);
    assert.deepEqual(violations, [], "events and results match the protocol's schemas");
  }
}
