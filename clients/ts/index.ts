// Node entry of pith's TypeScript client: the transport-agnostic core plus the Node transports
// (stdio child process, `ws` WebSocket). Browsers import ./browser.js instead.
export * from "./client.js";
export * from "./node.js";
export { PROTOCOL_VERSION } from "../../protocol/version.js";
export type { EventName, EventParams, MethodName, ParamsOf, ResultOf, ServerRequestName, ServerRequestParams, ServerRequestResult } from "../../protocol/index.js";
// Node only (these pull in zod): error codes, and the schemas for `validateEvents` / `validateResults`
export { ErrorCodes, events as eventSchemas, methods as methodSchemas } from "../../protocol/index.js";
