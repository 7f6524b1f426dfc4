// The cases an eval runs: pith's own (generated, deterministically, into the run's folder: see
// cases/generate.ts) or a folder of the user's, each case a session file and its ground truth
// side by side (NAME.jsonl and NAME.truth.json). A folder's files are untrusted: only regular
// files (no symlink, FIFO or device), of bounded size, a truth that validates; a case that fails
// is named with the reason and left out, and the others run.
import { lstatSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegularFileSync } from "../os/regular-file.js";
import { generateCases } from "./cases/generate.js";
import { Truth } from "./truth.js";

export interface EvalCase {
  name: string;
  sessionFile: string;
  truth: Truth;
}

export interface CaseSet {
  cases: EvalCase[];
  /** cases left out, and why */
  problems: { case: string; problem: string }[];
}

const MAX_SESSION_BYTES = 256 * 1024 * 1024;
const MAX_TRUTH_BYTES = 4 * 1024 * 1024;
const TRUTH = ".truth.json";

/** A case file's text, read as pith reads any file it did not write (src/os/regular-file.ts); else what is wrong. */
function readRegular(path: string, max: number): string | { problem: string } {
  const read = readRegularFileSync(path, { maxBytes: max, noFollow: true });
  if (read.kind === "read") return read.bytes.toString("utf8");
  if (read.kind === "missing") return { problem: `${path} does not exist` };
  if (read.why === "is a symbolic link") return { problem: `${path} is a symbolic link (a case's files must be regular files)` };
  return { problem: read.why.startsWith("is a") ? `${path} is not a regular file (it ${read.why})` : `${path} ${read.why}` };
}

/** The cases of a folder: every NAME.truth.json with its NAME.jsonl, in name order. */
export function loadCaseFolder(dir: string): CaseSet {
  let names: string[];
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
    names = readdirSync(dir);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(e.code === "ENOENT" ? `no such folder: ${dir}` : e.message);
  }
  const set: CaseSet = { cases: [], problems: [] };
  for (const file of names.filter((n) => n.endsWith(TRUTH)).sort()) {
    const name = file.slice(0, -TRUTH.length);
    const loaded = loadCase(dir, name);
    if ("problem" in loaded) set.problems.push({ case: name, problem: loaded.problem });
    else set.cases.push(loaded);
  }
  for (const file of names.filter((n) => n.endsWith(".jsonl")).sort()) {
    const name = file.slice(0, -".jsonl".length);
    if (!names.includes(name + TRUTH)) set.problems.push({ case: name, problem: `${join(dir, file)} has no ${name}${TRUTH} beside it` });
  }
  return set;
}

function loadCase(dir: string, name: string): EvalCase | { problem: string } {
  const truthText = readRegular(join(dir, name + TRUTH), MAX_TRUTH_BYTES);
  if (typeof truthText !== "string") return truthText;
  let raw: unknown;
  try {
    raw = JSON.parse(truthText);
  } catch (err) {
    return { problem: `${name}${TRUTH} is not JSON: ${(err as Error).message}` };
  }
  const truth = Truth.safeParse(raw);
  if (!truth.success) return { problem: `${name}${TRUTH} is not a ground truth: ${truth.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}` };
  const sessionFile = join(dir, name + ".jsonl");
  const session = readRegular(sessionFile, MAX_SESSION_BYTES);
  if (typeof session !== "string") return session;
  if (!hasEntry(session, truth.data.cycleBreak)) return { problem: `${name}.jsonl has no entry ${truth.data.cycleBreak} (the truth's cycleBreak)` };
  return { name, sessionFile, truth: truth.data };
}

/** The line of a session file that is the entry `id` (-1: none). */
function entryLine(lines: readonly string[], id: string): number {
  const quoted = JSON.stringify(id);
  return lines.findIndex((l) => l.includes(quoted) && (() => {
    try {
      return (JSON.parse(l) as { id?: unknown }).id === id;
    } catch {
      return false;
    }
  })());
}

function hasEntry(session: string, id: string): boolean {
  return entryLine(session.split("\n"), id) >= 0;
}

/** pith's own cases, written into `dir` (the run's folder) and loaded from there. */
export function shippedCases(dir: string): CaseSet {
  for (const c of generateCases()) {
    writeFileSync(join(dir, `${c.name}.jsonl`), c.session);
    writeFileSync(join(dir, `${c.name}${TRUTH}`), JSON.stringify(c.truth, null, 2) + "\n");
  }
  return loadCaseFolder(dir);
}
