// The offline model's summaries: handover notes in the summarizer's format (goal, progress,
// files, next steps) read off the transcript it is given, so an offline compaction shows what a
// compaction keeps. It reads the summarizer's own transcript format (compaction/serialize.ts):
// `[user]`, `[assistant calls tool NAME] {args}`, `[tool NAME failed|returned]` blocks.

interface Call {
  name: string;
  path?: string;
  command?: string;
  failed?: string;
}

function between(text: string, open: string, close: string): string | undefined {
  const a = text.indexOf(open);
  const b = a < 0 ? -1 : text.indexOf(close, a + open.length);
  return a < 0 || b < 0 ? undefined : text.slice(a + open.length, b).trim();
}

function oneLine(text: string, max = 160): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

function describe(c: Call): string {
  if (c.command !== undefined) return `ran \`${oneLine(c.command, 80)}\``;
  const verbs: Record<string, string> = { read: "read", write: "wrote", edit: "edited", ls: "listed", grep: "searched", find: "searched" };
  return `${verbs[c.name] ?? `used ${c.name} on`} ${c.path ?? "the project"}`;
}

/** The sections of earlier notes (an update keeps them), by heading. */
function sectionItems(notes: string | undefined, heading: string): string[] {
  if (!notes) return [];
  const m = new RegExp(`^#+ ${heading}\\n([\\s\\S]*?)(?=^#|$(?![\\s\\S]))`, "m").exec(notes);
  return (m?.[1] ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("- ") && l !== "- (none)");
}

export function scriptedSummary(prompt: string): string {
  const previous = between(prompt, "<existing-notes>", "</existing-notes>");
  const transcript = between(prompt, "<transcript>", "</transcript>") ?? prompt;
  const goals: string[] = [];
  const calls: Call[] = [];
  for (const block of transcript.split(/\n(?=\[)/)) {
    const head = /^\[([^\]]+)\](.*)$/m.exec(block);
    if (!head) continue;
    const [tag, rest] = [head[1], head[2].trim()];
    const body = block.slice(block.indexOf("\n") + 1);
    if (tag === "user") goals.push(oneLine(body));
    const call = /^assistant calls tool (\S+)$/.exec(tag);
    if (call) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(rest) as Record<string, unknown>;
      } catch {
        // arguments cut short by the serializer: the name is still worth telling
      }
      calls.push({ name: call[1], path: typeof args.path === "string" ? args.path : undefined, command: typeof args.command === "string" ? args.command : undefined });
    }
    const result = /^tool (\S+) failed$/.exec(tag);
    const open = result ? [...calls].reverse().find((c) => c.name === result[1] && c.failed === undefined) : undefined;
    if (open) open.failed = oneLine(body, 120);
  }
  const done = [...sectionItems(previous, "Done").map((l) => l.slice(2)), ...calls.filter((c) => !c.failed).map((c) => `[x] ${describe(c)}`)];
  const blocked = calls.filter((c) => c.failed).map((c) => `${describe(c).replace(/^\w+/, (v) => `could not ${c.name}`)}: ${c.failed}`);
  const files = [...new Set(calls.map((c) => c.path).filter((p): p is string => p !== undefined && p !== "."))];
  const goalLines = [...sectionItems(previous, "Goal").map((l) => l.slice(2)), ...goals].filter((g, i, all) => g && all.indexOf(g) === i);
  const list = (xs: string[], none = "(none)") => (xs.length ? xs.map((x) => `- ${x}`).join("\n") : `- ${none}`);
  return [
    "## Goal",
    list(goalLines, "(no request in this part of the session)"),
    "",
    "## Constraints & Preferences",
    "- (none)",
    "",
    "## Progress",
    "### Done",
    list(done),
    "",
    "### In Progress",
    "- (none)",
    "",
    "### Blocked",
    list(blocked),
    "",
    "## Key Decisions",
    "- (none: written by the offline demo model, which decides nothing)",
    "",
    "## Next Steps",
    blocked.length ? "1. Deal with what is blocked, then carry on with the goal." : "1. Wait for the user's next request.",
    "",
    "## Critical Context",
    list(files.map((f) => `file: ${f}`)),
  ].join("\n");
}
