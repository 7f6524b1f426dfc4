// The ordinary work between the planted beats: reading sources, searching, editing, running the
// tests, looking at the diff. Every tool call goes through here so the artifact trail and the
// session agree. Sizes follow the case's shape (tens of lines of output, or hundreds) and shrink
// to the budget left before the next planted beat, so beats land where the storyline puts them.
import { estimateTextTokens } from "../../compaction/estimate.js";
import { ArtifactTrail } from "./artifacts.js";
import { goFile } from "./code-go.js";
import { pyFile } from "./code-py.js";
import { rsFile } from "./code-rs.js";
import { tsFile } from "./code-ts.js";
import type { Prng } from "./prng.js";
import type { Scenario } from "./scenario.js";
import type { SessionWriter, ToolCallSpec } from "./session-writer.js";
import { makeSuite, suiteLines, testLog, type Failure, type Suite } from "./test-log.js";

/** estimated tokens of one line of generated source or log, a little over the real mean */
const TOKENS_PER_LINE = 16;
/** what a bash call and its result add around the output (the two messages, the call, its framing) */
const TOOL_CALL_TOKENS = 120;

const numbered = (text: string, from = 1): string =>
  text
    .split("\n")
    .map((l, i) => `${String(from + i).padStart(6)}\t${l}`)
    .join("\n");

/** lines an edit adds after the one it matched, by file extension */
const GUARDS: Record<string, readonly string[]> = {
  ts: ['log.debug({ at: "checkpoint" }, "reached");', "metrics.increment(\"calls\");", "// the caller has validated the input"],
  tsx: ["// memoised by the parent; do not recreate here", 'console.debug("render");'],
  py: ['log.debug("checkpoint reached")', "# the caller has validated the input", 'metrics.incr("calls")'],
  go: ['s.log.Debug("checkpoint")', "// the caller has validated the input", 's.metrics.Inc("calls")'],
  rs: ['tracing::debug!("checkpoint");', "// the caller has validated the input"],
};

export class Workbench {
  readonly trail = new ArtifactTrail();
  private readonly sources = new Map<string, string>();
  private readonly opened: string[] = [];
  private lastUnit = "";
  private readonly suite: Suite;

  constructor(
    readonly sc: Scenario,
    readonly rng: Prng,
    readonly w: SessionWriter,
  ) {
    this.suite = makeSuite(rng.fork(3), sc.vocab, sc.lang, sc.project, sc.testFiles, sc.shape === "long" ? 300 : 28);
  }

  /** one assistant step with its tool calls, thinking added on a case that has it */
  step(text: string | undefined, calls: ToolCallSpec[], thinking?: string): string {
    for (const c of calls) {
      const path = typeof c.arguments.path === "string" ? c.arguments.path : undefined;
      if (!path || c.isError) continue;
      if (c.name === "read") this.trail.read(path);
      else if (c.name === "write") this.trail.write(path);
      else if (c.name === "edit") this.trail.edit(path);
    }
    return this.w.assistant({ thinking: this.sc.thinking ? (thinking ?? this.musing(calls[0])) : undefined, text, calls });
  }

  /** the end of a turn: the assistant's closing text, no tool calls */
  say(text: string, thinking?: string): string {
    return this.w.assistant({ thinking: this.sc.thinking ? (thinking ?? this.musing(undefined)) : undefined, text });
  }

  /** the source of an existing project file (made up once, then kept as edits change it) */
  source(path: string, maxLines = Infinity): string {
    let text = this.sources.get(path);
    if (text === undefined) {
      const lines = Math.min(maxLines, this.sc.shape === "long" ? this.rng.int(140, 380) : this.rng.int(60, 200));
      const r = this.rng.fork(path.length);
      const v = this.sc.vocab;
      const flavor = this.sc.flavor;
      if (path.endsWith(".py")) text = pyFile(r, v, lines, flavor);
      else if (path.endsWith(".go")) text = goFile(r, v, lines, path.split("/").at(-2) ?? "main", flavor);
      else if (path.endsWith(".rs")) text = rsFile(r, v, lines);
      else text = tsFile(r, v, lines, path.endsWith(".tsx"), flavor);
      this.sources.set(path, text);
    }
    return text;
  }

  /** one unit of ordinary work on `topic`, using at most about `budget` tokens */
  unit(topic: string, budget: number): void {
    const maxLines = Math.max(8, Math.floor(budget / TOKENS_PER_LINE));
    const roll = this.rng.next();
    let kind = roll < 0.34 || this.opened.length === 0 ? "read" : roll < 0.5 ? "grep" : roll < 0.78 ? "edit" : roll < 0.93 ? "test" : "status";
    // nobody runs the suite twice or looks at the status twice with nothing changed in between
    if (kind === this.lastUnit && (kind === "test" || kind === "status")) kind = "edit";
    this.lastUnit = kind;
    if (kind === "read") this.readFile(topic, maxLines);
    else if (kind === "grep") this.grep(topic, maxLines);
    else if (kind === "edit") this.editFile(topic);
    else if (kind === "test") this.runTests(topic, maxLines);
    else this.gitStatus();
  }

  readFile(topic: string, maxLines: number, path: string = this.rng.pick(this.sc.files)): void {
    const all = this.source(path).split("\n");
    const long = this.sc.shape === "long";
    const want = Math.min(maxLines, long ? all.length : this.rng.int(20, 60));
    const from = want >= all.length ? 1 : this.rng.int(1, all.length - want + 1);
    const slice = all.slice(from - 1, from - 1 + want).join("\n");
    const args: Record<string, unknown> = from === 1 && want >= all.length ? { path } : { path, offset: from, limit: want };
    const rest = from - 1 + want < all.length ? `\n\n[Showing lines ${from}-${from - 1 + want} of ${all.length}. Use offset=${from + want} to continue.]` : "";
    if (!this.opened.includes(path)) this.opened.push(path);
    this.step(this.rng.pick([`Let me look at ${path} for the ${topic} part.`, `Reading ${path} first.`, `${path} is where this lives; checking it.`, undefined]), [{ name: "read", arguments: args, output: numbered(slice, from) + rest }]);
  }

  grep(topic: string, maxLines: number): void {
    const path = this.rng.pick(this.opened);
    const lines = this.source(path).split("\n");
    const hit = lines.find((l, i) => i > 10 && /function|def |func |fn |class /.test(l) && this.rng.chance(0.3)) ?? lines[12] ?? lines[0];
    const word = (hit.match(/[A-Za-z_][A-Za-z0-9_]{5,}/g) ?? ["status"]).at(-1) ?? "status";
    const out: string[] = [];
    for (const f of this.sc.files)
      this.source(f)
        .split("\n")
        .forEach((l, i) => {
          if (l.includes(word)) out.push(`${f}:${i + 1}: ${l.trim()}`);
        });
    out.splice(Math.min(maxLines, this.sc.shape === "long" ? 120 : 30));
    this.step(this.rng.pick([`Where else is ${word} used?`, `Checking the callers of ${word} before I change it.`, undefined]), [{ name: "grep", arguments: { pattern: word, path: "src" }, output: out.join("\n") }]);
  }

  /** an opened file the work may change: the scenario's last two sources are only ever read */
  private editable(): string | undefined {
    const readOnly = this.sc.files.slice(-2);
    const ok = this.opened.filter((f) => !readOnly.includes(f));
    return ok.length > 0 ? this.rng.pick(ok) : undefined;
  }

  editFile(topic: string, path: string | undefined = this.editable()): void {
    if (path === undefined) return this.readFile(topic, 60, this.sc.files[0]);
    const text = this.source(path);
    const lines = text.split("\n");
    const guards = new Set(Object.values(GUARDS).flat());
    const unique = (l: string) => text.indexOf(l) === text.lastIndexOf(l);
    const constant = /(?<![$\w.])[1-9]\d+(?![\w.%])/;
    // a line that starts a statement: a line added before it is still valid code
    const statement = /^\s*(return\b|if\b|const |let |throw\b|raise\b|for\b|out = |mask = |found = |rows, err|defer |written \+=)/;
    const candidates = lines.map((l, i) => i).filter((i) => (constant.test(lines[i]) || statement.test(lines[i])) && lines[i].trim().length > 12 && !guards.has(lines[i].trim()) && !guards.has((lines[i - 1] ?? "").trim()) && unique(lines[i]));
    if (candidates.length === 0) return this.readFile(topic, 60);
    const i = this.rng.pick(candidates);
    const oldText = lines[i];
    const indent = oldText.match(/^\s*/)?.[0] ?? "";
    // a constant retuned, or a line added before a statement
    const retune = constant.test(oldText) && (!statement.test(oldText) || this.rng.chance(0.5));
    const newText = retune ? oldText.replace(constant, (d) => String(Number(d) + this.rng.int(1, 9) * 10)) : `${indent}${this.rng.pick(GUARDS[path.split(".").at(-1) ?? "ts"] ?? GUARDS.ts)}\n${oldText}`;
    lines[i] = newText;
    this.sources.set(path, lines.join("\n"));
    this.step(this.rng.pick([`Adjusting ${path} for ${topic}.`, `Small change in ${path}.`, `Updating line ${i + 1} of ${path}.`]), [{ name: "edit", arguments: { path, oldText, newText }, output: `Edited ${path}: replaced 1 occurrence (at line ${i + 1}).` }]);
  }

  /** a test run, of the suite or (with no room for it) of one file; failing with `failure` when given */
  runTests(topic: string, maxLines: number, failure?: Failure, command?: string): string {
    const own = failure && this.sc.testFiles.includes(failure.file) ? failure.file : undefined;
    const only = command !== undefined ? this.fileOf(command) : suiteLines(this.suite) > maxLines ? (own ?? this.rng.pick(this.sc.testFiles)) : undefined;
    const log = testLog(this.rng, this.suite, failure, only);
    const output = failure ? `${log}\n\nCommand failed with exit code 1` : log;
    const text = this.rng.pick([`Running the tests for ${topic}.`, "Running the suite.", "Checking the tests.", undefined]);
    return this.step(only ? text?.replace("the suite", `the ${only} tests`) : text, [{ name: "bash", arguments: { command: command ?? (only ? this.fileCommand(only) : this.sc.test) }, output, isError: failure !== undefined }]);
  }

  /** about what a run of the whole suite adds to the session, in tokens */
  suiteTokens(): number {
    return TOOL_CALL_TOKENS + estimateTextTokens(testLog(this.rng.fork(9), this.suite));
  }

  /** the test file a command names by its last word (a path, a module, a package), if any */
  private fileOf(command: string): string | undefined {
    const last = (command.split(" ").at(-1) ?? "").replace(/^\.\//, "").replace(/\/\.\.\.$/, "");
    return this.sc.testFiles.find((f) => f.includes(last));
  }

  /** the command that runs one test file (or package, or module) */
  private fileCommand(file: string): string {
    switch (this.sc.lang) {
      case "py":
        return `${this.sc.test} ${file}`;
      case "go":
        return `go test ./${file.split("/").slice(1).join("/")}/...`;
      case "rs":
        return `cargo test ${file}`;
      default:
        return `${this.sc.test} -- ${file}`;
    }
  }

  /** a new module for `topic`, written whole; later work may read and edit it like the others */
  createFile(path: string, topic: string, maxLines: number): void {
    const content = this.source(path, maxLines);
    this.opened.push(path);
    this.step(`Adding ${path} for ${topic}.`, [{ name: "write", arguments: { path, content }, output: `Created ${path} (${Buffer.byteLength(content)} bytes written)` }]);
  }

  /** a failing run, the failure quoted and fixed by an edit, and the run again */
  failAndFix(topic: string, maxLines: number): void {
    const file = this.rng.pick(this.sc.testFiles);
    const [a, b] = [this.rng.int(2, 60), this.rng.int(2, 60)];
    const want = a === b ? a + 1 : b;
    const message = { py: `assert ${a} == ${want}`, go: `got ${a}, want ${want}`, rs: `assertion \`left == right\` failed\n  left: ${a}\n right: ${want}` }[this.sc.lang as string] ?? `AssertionError: expected ${a} to equal ${want}`;
    const test = this.sc.lang === "go" ? `Test${this.rng.int(1, 9)}Regression` : `regression_${this.rng.hex(4)}`;
    this.runTests(topic, maxLines, { test, file, message: message });
    const path = this.editable() ?? this.sc.files[0];
    this.say(`One failure in ${file}: ${message.split("\n")[0]}. The count comes from ${path}; fixing it there.`);
    this.w.user(this.rng.pick(["ok, fix it", "Go ahead.", "Fine, fix that."]));
    this.editFile(topic, path);
    this.runTests(topic, maxLines);
  }

  gitStatus(): void {
    const files = this.opened.slice(0, this.rng.int(1, Math.min(5, this.opened.length)));
    const output = files.map((f) => ` M ${f}`).join("\n") || "";
    this.step(undefined, [{ name: "bash", arguments: { command: "git status --short" }, output }]);
  }

  /** a thinking block about the step at hand */
  private musing(call: ToolCallSpec | undefined): string {
    const path = typeof call?.arguments.path === "string" ? call.arguments.path : this.rng.pick(this.sc.files);
    const r = this.rng;
    switch (call?.name) {
      case "read":
        return r.pick([
          `I haven't looked at ${path} closely yet. Reading it before changing anything, so I don't duplicate a helper that already exists there.`,
          `The behaviour I need to change is probably in ${path}. Let me read it and see how the functions are split.`,
          `${path} is imported by the handlers; I should check its exports and error handling first.`,
        ]);
      case "edit":
        return r.pick([
          `The change in ${path} is small. I'll replace only the line that matters so the diff stays reviewable.`,
          `I have the exact text of ${path} from the read, so the replacement will match. Keep the rest of the function as it is.`,
          `This edit in ${path} should not change any signature; the callers stay untouched.`,
        ]);
      case "grep":
        return r.pick([`Before renaming or changing this I need every caller. A search over src is quicker than reading each file.`, `If this is used in more places than I expect, the change needs to be wider. Searching.`]);
      case "bash":
        return r.pick([`Time to run the tests; I'd rather find a regression now than after three more edits.`, `Let me check the state of the working tree and the tests before going further.`, `A quick run to confirm nothing else broke.`]);
      case "ls":
        return `New session on ${this.sc.project}. The user gave a five-step plan; before reading any file I want the project's layout.`;
      case "write":
        return `This deserves its own module rather than growing ${r.pick(this.sc.files)} further.`;
      default:
        return r.pick([`That piece is done and the tests pass. Summarise briefly and wait for the user.`, `The user should know what changed; keep the summary short.`, `Done with this part; report back.`]);
    }
  }

  /** puts `line` into an existing file's source (a line a planted fix then changes); returns its line number */
  plantLine(path: string, line: string): number {
    const lines = this.source(path).split("\n");
    const at = Math.min(lines.length - 1, 12 + this.rng.int(0, 40));
    const indent = path.endsWith(".go") ? "\t" : path.endsWith(".py") || path.endsWith(".rs") ? "    " : "  ";
    lines.splice(at, 0, `${indent}${line}`);
    this.sources.set(path, lines.join("\n"));
    return at + 1;
  }

  /** applies an edit the storyline made to the source the later reads show */
  applyEdit(path: string, oldText: string, newText: string): void {
    this.sources.set(path, this.source(path).replace(oldText, newText));
  }
}
