// Every method's scope in protocol/methods.ts is what the server does. Each method is called
// through the server's own dispatcher and handler table (params checked by the protocol's
// schemas first), with valid params, while the session is held by something exclusive (a run; a
// user bash command): a method whose row says "exclusive" is refused with SessionBusy, every
// other one is answered. Which methods those are is read from the table, never listed here.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { ErrorCodes, METHOD_NAMES, METHOD_SCOPES, methods, parseParams, type MethodName, type ParamsOf } from "../../protocol/index.js";
import { HostError } from "../../src/host/host-error.js";
import type { LiveSession } from "../../src/host/live/live-session.js";
import { SessionHost } from "../../src/host/session-host.js";
import { createLogger } from "../../src/log/logger.js";
import type { ConnState } from "../../src/rpc/connection-state.js";
import { methodHandlers, type Handlers } from "../../src/rpc/method-handlers.js";
import { tempDir } from "../support/tmp.js";
import { gated } from "../support/gated.js";

test("every method declares one of the scopes, and every scope names some method", () => {
  for (const name of METHOD_NAMES) assert.ok(Object.hasOwn(METHOD_SCOPES, methods[name].scope), `${name}: ${String(methods[name].scope)}`);
  for (const scope of Object.keys(METHOD_SCOPES)) assert.ok(METHOD_NAMES.some((m) => methods[m].scope === scope), `no method has scope ${scope}`);
});

interface World {
  cwd: string;
  session: LiveSession;
  /** an entry of the session, for the methods that name one */
  entryId: string;
}

/** Valid params for each method (the type makes a new method need a line here, and so a scope check). */
const SAMPLES: { [M in MethodName]: (w: World) => ParamsOf<M> } = {
  initialize: () => ({ protocolVersion: 1, clientInfo: { name: "scope-test" } }),
  createSession: (w) => ({ cwd: w.cwd }),
  openSession: (w) => ({ sessionId: w.session.id }),
  listSessions: (w) => ({ cwd: w.cwd }),
  closeSession: () => ({ sessionId: "replaced-per-call" }),
  forkSession: (w) => ({ sessionId: w.session.id, entryId: w.entryId }),
  subscribe: (w) => ({ sessionId: w.session.id }),
  unsubscribe: (w) => ({ sessionId: w.session.id }),
  getState: (w) => ({ sessionId: w.session.id }),
  getMessages: (w) => ({ sessionId: w.session.id }),
  getTree: (w) => ({ sessionId: w.session.id }),
  getHistory: (w) => ({ sessionId: w.session.id }),
  prompt: (w) => ({ sessionId: w.session.id, text: "one more" }),
  abort: (w) => ({ sessionId: w.session.id }),
  compact: (w) => ({ sessionId: w.session.id }),
  setAutoCompactionEnabled: (w) => ({ sessionId: w.session.id, enabled: true }),
  setCompactionThreshold: (w) => ({ sessionId: w.session.id, threshold: 0.7 }),
  navigateTree: (w) => ({ sessionId: w.session.id, targetId: w.entryId }),
  setModel: (w) => ({ sessionId: w.session.id, model: "scripted" }),
  setThinkingLevel: (w) => ({ sessionId: w.session.id, level: "low" }),
  listModels: () => ({}),
  getSettings: () => ({}),
  updateSettings: () => ({ patch: { maxTurns: 50 } }),
  setSessionName: (w) => ({ sessionId: w.session.id, name: "scoped" }),
  setLabel: (w) => ({ sessionId: w.session.id, entryId: w.entryId, label: "here" }),
  deleteSession: () => ({ sessionId: "replaced-per-call" }),
  getSessionStats: (w) => ({ sessionId: w.session.id }),
  bash: (w) => ({ sessionId: w.session.id, command: "true" }),
  setPermissionMode: (w) => ({ sessionId: w.session.id, mode: "auto" }),
  listMcpServers: (w) => ({ sessionId: w.session.id }),
};

function connState(): ConnState {
  const conn = { id: "scope-test", kind: "websocket" as const, send() {}, close() {}, onMessage() {}, onOversize() {}, onClose() {} };
  return { conn, initialized: false, capabilities: { permissions: false, hooks: [] }, subs: new Map(), peer: undefined as never, questions: { answers: () => false, ask: async () => undefined }, fromNode: false };
}

async function call<M extends MethodName>(host: SessionHost, handlers: Handlers, method: M, raw: ParamsOf<M>): Promise<{ ok: true } | { ok: false; code: number; message: string }> {
  const checked = parseParams(method, raw);
  assert.ok(checked.ok, `${method}: the sample params are valid`);
  try {
    const params = checked.params;
    await host.perform(method, params, (held) => handlers[method](params, connState(), held));
    return { ok: true };
  } catch (err) {
    if (err instanceof HostError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

function setup(t: TestContext, script: ConstructorParameters<typeof SessionHost>[0]["script"]) {
  const home = tempDir(t);
  // a project of its own: no session works inside pith's home
  const cwd = tempDir(t);
  const host = new SessionHost({ sessionsDir: join(home, "sessions"), logger: createLogger("silent"), env: { PITH_HOME: home }, script });
  t.after(() => host.shutdown());
  return { host, cwd, handlers: methodHandlers(host, 100, { PITH_HOME: home }) };
}

/** Calls every method while `hold` keeps the session busy, abort last (it ends the hold). */
async function callEachWhileHeld(t: TestContext, hold: (s: LiveSession) => Promise<unknown>, busyWord: RegExp): Promise<void> {
  const { host, cwd, handlers } = setup(t, { turns: [{ text: "first" }, { text: "slow", delayMs: 20_000 }] });
  const session = await host.create({ cwd });
  await gated(session).prompt({ text: "hello" });
  await session.idle();
  const w: World = { cwd, session, entryId: session.file.leafId! };
  const held = hold(session);
  assert.ok(session.busy, "the session is held");
  for (const method of METHOD_NAMES.filter((m) => m !== "abort")) {
    const scope = methods[method].scope;
    // closing or deleting the held session would end the hold: those act on a session of their own
    const params = method === "closeSession" || method === "deleteSession" ? { sessionId: (await host.create({ cwd })).id } : SAMPLES[method](w);
    const answer = await call(host, handlers, method, params as ParamsOf<typeof method>);
    if (scope === "exclusive") {
      assert.ok(!answer.ok && answer.code === ErrorCodes.SessionBusy, `${method} (exclusive) is refused while held: ${JSON.stringify(answer)}`);
      assert.match(!answer.ok ? answer.message : "", busyWord, method);
    } else {
      assert.ok(answer.ok, `${method} (${scope}) is answered while the session is held: ${JSON.stringify(answer)}`);
    }
    assert.ok(session.busy, `${method} left the session held`);
  }
  assert.deepEqual(await call(host, handlers, "abort", { sessionId: session.id }), { ok: true });
  await held.catch(() => undefined);
  await session.idle();
  assert.equal(session.busy, false, "abort ended the hold");
}

test("while a run is in progress: exclusive methods are refused with SessionBusy, the rest answer", async (t) => {
  await callEachWhileHeld(t, (s) => gated(s).prompt({ text: "long one" }), /run/);
});

test("while a user bash command runs: the same (a prompt without a run to join is refused too)", async (t) => {
  await callEachWhileHeld(t, (s) => gated(s).bash("sleep 20"), /bash command/);
});
