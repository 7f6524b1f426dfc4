// What the editor a session's client runs in may lend the tools (ACP's fs and terminal
// capabilities): its buffers, so the model reads the text the user is editing and its writes land
// in the editor (which saves them and updates an open buffer); and its terminal, so the user can
// watch and stop the model's commands. The tools layer only knows these ports; src/acp implements
// them over the connection. Absent ports, or an absent half of `files`, mean the disk and pith's
// own processes, as without an editor.
//
// The ports never decide what may be touched: every path is checked by pith's own rules (paths.ts,
// confined-fs.ts) before it is handed over, and the command given to the terminal is the one pith
// would run itself, sandbox included (terminal-launch.ts).

export interface EditorPorts {
  files?: EditorFiles;
  terminal?: EditorTerminal;
}

export interface EditorFiles {
  /** the file's whole text as the editor has it (an open buffer's unsaved edits included); absent: read from disk */
  readTextFile?(path: string): Promise<string>;
  /** the editor writes `content` as the file's whole text; absent: pith writes to disk */
  writeTextFile?(path: string, content: string): Promise<void>;
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
