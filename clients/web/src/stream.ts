// The reply model and the summary/threshold helpers moved to clients/ts (pure, shared with other
// clients, tested there); kept under this path for code that imported them from here.
export { StreamingMessage } from "../../ts/reply-stream.js";
export { fileListsFromSummary } from "../../ts/transcript-state.js";
export { compactionThreshold } from "../../ts/session-view.js";
