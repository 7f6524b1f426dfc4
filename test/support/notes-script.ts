// A fixed script for tests of the agent loop and the host: read, edit, bash, then a long write whose
// reported usage passes the offline model's threshold, so an automatic compaction happens inside
// the run (with enough text before the cut), then a second prompt that carries on after it.
import type { Script } from "../../src/llm/scripted.js";

export const NOTES_FILES: Record<string, string> = {
  "notes.md": "# pith notes\n\nThings a session keeps:\n- messages\n- compaction\n",
};

const report = [
  "# Report",
  "",
  "What the session did, step by step:",
  ...Array.from({ length: 320 }, (_, i) => `- step ${i + 1}: looked at notes.md (${3 + (i % 5)} items), checked the list against the plan, kept the file tidy, wrote down what changed.`),
].join("\n");

export const NOTES_SCRIPT: Script = {
  turns: [
    { text: "I'll read the notes first.", toolCalls: [{ name: "read", arguments: { path: "notes.md" } }], usage: { input: 3200, output: 40 } },
    {
      text: "The list lacks branch summaries; adding them.",
      toolCalls: [{ name: "edit", arguments: { path: "notes.md", oldText: "- compaction\n", newText: "- compaction\n- branch summaries\n" } }],
      usage: { input: 6400, output: 90 },
    },
    { text: "Checking the result.", toolCalls: [{ name: "bash", arguments: { command: "wc -l notes.md && grep -c '^- ' notes.md && seq 1 1200" } }], usage: { input: 9800, output: 50 } },
    { text: "Writing a short report.", toolCalls: [{ name: "write", arguments: { path: "report.md", content: report } }], usage: { input: 13_400, output: 1900 } },
    {
      text: "Done: notes.md now lists messages, compaction and branch summaries (3 items), and report.md describes the steps. The context is now large enough that pith compacts it before the next turn.",
      usage: { input: 16_900, output: 120, cacheRead: 0 },
    },
    { text: "Picking up after the compaction: the summary says notes.md was edited, so I'll check it again.", toolCalls: [{ name: "read", arguments: { path: "notes.md" } }], usage: { input: 5200, output: 50 } },
    { text: "notes.md still has the three items. Nothing else to do.", usage: { input: 5600, output: 40 } },
  ],
};
