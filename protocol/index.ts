// pith's wire protocol: zod schemas for every method, event, server request and error, and the
// TypeScript types clients use (z.infer of those schemas). Depends on zod only.
export * from "./version.js";
export * from "./errors.js";
export * from "./messages.js";
export * from "./methods.js";
export * from "./events.js";
export * from "./server-requests.js";
export * from "./validate.js";
export * from "./mcp.js";
