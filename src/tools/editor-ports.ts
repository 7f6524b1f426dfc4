// What the editor a session's client runs in may lend the tools: its terminal (ACP's terminal
// capability), so the user can watch and stop the model's commands. The tools layer only knows
// this port; src/acp implements it over the connection. An absent port means pith's own
// processes, as without an editor.
//
// The port never decides what may be touched: the command given to the terminal is the one pith
// would run itself, sandbox included (terminal-launch.ts). There is no port for the editor's
// files (ACP fs/read_text_file, fs/write_text_file): the editor opens a path, after any check pith
// can make, and a link swapped meanwhile sends it anywhere; the file tools open and check through
// their own descriptors instead (confined-fs.ts, docs/acp.md).

export interface EditorPorts {
  terminal?: EditorTerminal;
}

/** What the editor runs: a program, its arguments, its whole environment and where. */
export interface TerminalRequest {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** the editor keeps at most this many bytes of output (the last ones) */
  outputByteLimit?: number;
}

export interface TerminalExit {
  code: number | null;
  signal: string | null;
}

/** A command running in the editor's terminal. */
export interface TerminalRun {
  /** the terminal's id, for the client to show it live (ACP's terminal tool call content) */
  readonly id: string;
  waitForExit(): Promise<TerminalExit>;
  /** the output so far (the last outputByteLimit bytes; `truncated` when earlier ones were dropped) */
  output(): Promise<{ output: string; truncated: boolean; exit?: TerminalExit }>;
  kill(): Promise<void>;
  /** frees the terminal; the client keeps showing what it showed */
  release(): Promise<void>;
}

export interface EditorTerminal {
  /** the most output the editor can hand back in one answer (the request's outputByteLimit is kept under it) */
  readonly maxOutputBytes?: number;
  create(request: TerminalRequest): Promise<TerminalRun>;
}
