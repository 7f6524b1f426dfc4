export * from "./types.js";
export * from "./session-error.js";
export * from "./paths.js";
export { SessionFile } from "./session-file.js";
export { buildSessionContext } from "./context.js";
export { findSessionFile, listSessions, summarizeSessionFile, type SessionSummary } from "./list.js";
export type { TreeView } from "./tree.js";
