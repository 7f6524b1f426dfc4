export * from "./types.js";
export * from "./errors.js";
export * from "./paths.js";
export { SessionFile, type OpenOptions, type CreateOptions, type AppendOptions } from "./session-file.js";
export { buildSessionContext, entryToMessage, type SessionContext, type ModelRef } from "./context.js";
export { findSessionFile, listSessions, summarizeSessionFile, type SessionSummary } from "./list.js";
export type { TreeNode, TreeView } from "./tree.js";
