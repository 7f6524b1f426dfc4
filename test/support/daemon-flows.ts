// The end-to-end flows every transport must carry the same way, registered once per transport
// (test/daemon/stdio.test.ts, test/daemon/ws.test.ts): a prompt with tool use, threshold and
// overflow compaction, manual compaction, a tree move with a branch summary, and aborts in every
// phase (stream, tool, compaction). The daemon talks to the fake Messages API; every test
// enqueues exactly the scenarios it consumes and works in its own session. Each theme's tests
// are in a flow-*-tests.ts file beside this one.
import { afterEach } from "node:test";
import { registerAbortCompactionFlowTests } from "./flow-abort-compaction-tests.js";
import { registerAbortFlowTests } from "./flow-abort-tests.js";
import { registerCompactionFlowTests } from "./flow-compaction-tests.js";
import { registerPromptFlowTests } from "./flow-prompt-tests.js";
import { FlowSessions, type FlowContext } from "./flow-sessions.js";
import { registerTreeFlowTests } from "./flow-tree-tests.js";

export { rebuild } from "./flow-deltas.js";
export { drainFake, type FlowContext } from "./flow-sessions.js";

/** Registers the flow tests; `ctx` is called inside each test (after the file's before hook). */
export function registerFlowTests(transport: string, ctx: () => FlowContext): void {
  const flow = new FlowSessions(transport, ctx);
  afterEach(() => flow.closeAll());
  registerPromptFlowTests(flow);
  registerCompactionFlowTests(flow);
  registerTreeFlowTests(flow);
  registerAbortFlowTests(flow);
  registerAbortCompactionFlowTests(flow);
}
