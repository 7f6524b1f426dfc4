// Node entry of pith's TypeScript client: the transport-agnostic core plus the Node transports
// (stdio child process, `ws` WebSocket). Browsers import ./browser.js instead.
export * from "./client.js";
export * from "./node.js";
// a session's events as state, for UIs (no zod: a browser bundle imports these files directly)
export * from "./session-view.js";
export * from "./mcp-servers.js";
export * from "./transcript-state.js";
export * from "./reply-stream.js";
export { PROTOCOL_VERSION } from "../../protocol/version.js";
export type { EventName, EventParams, MethodName, ParamsOf, ResultOf, ServerRequestName, ServerRequestParams, ServerRequestResult } from "../../protocol/index.js";
// error codes: plain constants (protocol/error-codes.ts imports nothing)
export { ErrorCodes, ErrorDescriptions, errorCodeName, type ErrorCode, type ErrorCodeName } from "../../protocol/error-codes.js";
// Node only (these pull in zod): the schemas for `validateEvents` / `validateResults`
export { events as eventSchemas, methods as methodSchemas } from "../../protocol/index.js";
