// A case's session as one run of the eval uses it: a copy of its file (the eval never writes to a
// case), all of it or only its first part (two cycles compact there first), and the rest of the
// scripted work appended to the live session after that compaction, as a session that went on
// working would have stored it.
import { readFileSync, writeFileSync } from "node:fs";
import type { StoredMessage } from "../messages/types.js";
import type { SessionFile } from "../session/session-file.js";
import { entryLine, type EvalCase } from "./case-set.js";

interface Entry {
  type?: unknown;
  id?: unknown;
  message?: unknown;
  thinkingLevel?: unknown;
}

export interface CaseCopy {
  file: string;
  /** the entries after the first part (none when the copy holds all of it) */
  rest: Entry[];
}

/** Writes the case's session (whole, or up to its cycle break) to `file`. */
export function copyCase(c: EvalCase, file: string, part: "all" | "first"): CaseCopy {
  const text = readFileSync(c.sessionFile, "utf8");
  if (part === "all") {
    writeFileSync(file, text);
    return { file, rest: [] };
  }
  const lines = text.split("\n");
  const at = entryLine(lines, c.truth.cycleBreak);
  if (at < 0) throw new Error(`${c.name}: no entry ${c.truth.cycleBreak} (the truth's cycleBreak)`);
  writeFileSync(file, lines.slice(0, at + 1).join("\n") + "\n");
  const rest = lines.slice(at + 1).filter((l) => l.trim()).map((l) => JSON.parse(l) as Entry);
  return { file, rest };
}

/** Appends the rest of the work to the live session: its messages and thinking-level changes (the eval chooses the model). */
export function continueWork(file: SessionFile, rest: readonly Entry[]): number {
  let n = 0;
  for (const e of rest) {
    if (e.type === "message" && typeof e.message === "object" && e.message !== null) {
      file.appendMessage(e.message as StoredMessage);
      n++;
    } else if (e.type === "thinking_level_change" && typeof e.thinkingLevel === "string") {
      file.appendThinkingLevelChange(e.thinkingLevel);
    }
  }
  file.sync();
  return n;
}
