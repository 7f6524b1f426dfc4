// What a tool is to the agent: a name, a description, what it may do (its effects), the JSON
// Schema of its parameters the model sees, a check of the model's arguments, and an execute
// function. Tools throw ToolError (or anything) for failures; the agent turns every
// throw into an error result for the model, so a failing tool never ends a run.
import type { ToolOutput } from "../../protocol/events.js";
import type { EditorPorts } from "./editor-ports.js";
import type { SandboxPolicy } from "./sandbox.js";

export interface ToolContext {
  /** the session's working directory (absolute) */
  cwd: string;
  /**
   * its real path when the session went live (where it existed): the tools stay confined to
   * that directory, and bash's sandbox refuses to run where the cwd leads elsewhere since
   */
  realCwd?: string;
  /** aborts the call: a tool stops at once (bash kills its whole process group) */
  signal: AbortSignal;
  /** allow paths outside cwd (session setting); off by default */
  allowOutsideCwd?: boolean;
  /** real paths no tool may read or write, whatever else is allowed (pith's home) */
  deniedPaths?: readonly string[];
  /** real paths tools may read but never write (the project's .pith) */
  readOnlyPaths?: readonly string[];
  /** the environment for processes tools start (pith's secrets removed; see tool-env.ts) */
  env?: NodeJS.ProcessEnv;
  /** how bash commands are confined; absent: not sandboxed */
  sandbox?: SandboxPolicy;
  /** partial output while the tool runs (bash streams its output here) */
  onUpdate?: (partial: ToolOutput) => void;
  /** where full outputs of truncated results are kept (default: the OS temp dir) */
  tempDir?: string;
  /** a command whose output passes this many bytes is killed (bash; default: no limit) */
  maxOutputBytes?: number;
  /**
   * The editor of the client serving the session, when it lends its terminal (bash runs there);
   * read at each call, since a client may come or go.
   */
  editor?: EditorPorts;
}

/** What a tool returns (and streams while it runs): the wire's tool_execution_update partial. */
export type { ToolOutput };

/**
 * What a tool may do, as it declares it: the permission modes decide from this, never from its
 * name, so a tool from elsewhere is asked about exactly like a built-in one. `read`: reads only
 * (runs in every mode); `write`: changes files; `run`: runs commands; `unknown`: it cannot say
 * (treated as the widest: asked in "ask", refused in "readonly").
 */
export type ToolEffects = "read" | "write" | "run" | "unknown";

/** Whether a tool with these effects runs without a question in "ask" and at all in "readonly". */
export const readsOnly = (effects: ToolEffects): boolean => effects === "read";

/** A tool's parameters as the providers are told them: a JSON Schema object. */
export type ToolInputSchema = { type: "object"; [key: string]: unknown };

/**
 * A tool, wherever it comes from: described to every provider by JSON Schema and checking its own
 * arguments, so one from elsewhere (an MCP server's) needs no zod. The built-ins are made from
 * their zod schemas once (zod-tool.ts).
 */
export interface Tool<P = unknown> {
  name: string;
  description: string;
  effects: ToolEffects;
  inputSchema: ToolInputSchema;
  /** the model's arguments checked: throws a ToolError saying what is wrong, for the model to correct */
  parse(args: unknown): P;
  execute(params: P, ctx: ToolContext): Promise<ToolOutput>;
}

/** A failure to report to the model as the tool's (error) result. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ToolError";
  }
}
