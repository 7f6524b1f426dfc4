// The offline demo's notes.md (demo-script.ts puts it in the scratch project).
/**
 * The scratch project's notes: a messy list to tidy above pages of notes that are already tidy.
 * Their length is what makes the demo's first task pass the demo model's threshold (models.ts,
 * DEMO_MODEL): reading and rewriting them fills the context as a real file would.
 */
export const DEMO_NOTES = `# pith notes

Things a session keeps:
- messages
* compaction
- messages

## How a session grows

Every prompt, reply, tool call and tool result is a line appended to the session file. Nothing
is rewritten: moving back in the tree only moves the leaf, so an earlier branch is still there
to return to. The model sees the path from the root to the leaf, not the whole file.

## When the context fills up

The model reads its whole context with every request, and the window has a limit. Past the
threshold, pith summarizes the older part of the path into a checkpoint (the goal, what is done,
what is in progress, the decisions and the next steps) and keeps the recent turns word for word.
The summary is one more entry in the file: the messages it replaces stay stored, only the model
stops seeing them.

## Branches

Sending from an earlier entry starts a branch beside the old path. Leaving a branch can leave a
short summary of it behind, so the work done there is not lost to the model: that is what the
branch summaries in the list above are.

## Ahead of time

Before the threshold is reached, pith can write the next summary while the model is still
working, so that when the compaction comes it is applied at once instead of making the user wait
for a summary to be written. If the session moves on in the meantime, the early summary is
dropped and written again.

## Tools

The model works through tools: read, write, edit, bash, ls, grep and find, each confined to the
session's folder, and the tools of any MCP server the settings name. Every tool says what it may
do (read only, write files, run commands), and the permission mode decides from that alone:
auto runs everything, ask asks before anything that is not read-only, readonly refuses changes.

## The sandbox

Commands run in a sandbox that sees the session's folder and little else: pith's own files and
the user's secrets are hidden from it, and the network is off unless the settings turn it on.
The checks pith makes before running a tool are a second line; the sandbox is the wall.

## Models

A model is named provider/id. With a key, the Anthropic and OpenAI models of the catalog work;
a local server (Ollama, vLLM, llama.cpp) is one entry in the settings, and pith asks it for its
models and their windows. With neither, sessions run this offline demo model, which follows a
small script and writes its summaries without a model.

## Clients

The same sessions can be reached from the web UI, from an editor over the Agent Client Protocol,
from a script with --mode json, or from the terminal with -p. Several clients can watch one
session at once; each sees every event, whoever caused it, and can pick up after a reconnect.

## Many machines

With a PostgreSQL store, several daemons share one set of sessions. Each session has one writer
at a time, fenced so that a daemon that lost its turn cannot write; a client that reaches the
wrong daemon is relayed to the one that holds the session.

## Log

Mon 09:12  started a session on the parser; the model read the grammar and the failing test.
Mon 09:40  two fixes tried on a branch; the second one kept, the first left as a branch summary.
Mon 11:05  the context passed the threshold during a long test run; compacted, work went on.
Mon 14:30  asked for the error messages to name the line and column; done in three edits.
Tue 08:55  continued yesterday's session with --continue; the summary carried the goal over.
Tue 10:20  steered the model mid-run: skip the benchmarks, fix the flaky test first.
Tue 13:45  the flaky test was a timeout; raised it for slow machines and said why in a comment.
Tue 16:10  a local model on the laptop for the afternoon: one settings entry, its window found.
Wed 09:00  opened the same session from the editor and the web UI at once; both saw each run.
Wed 11:30  the sandbox refused a write outside the project; moved the output into it instead.
Wed 15:15  compacted by hand before a big refactor, with instructions to keep the API notes.
Thu 10:05  went back in the tree to before the refactor and tried a smaller change instead.
Thu 14:40  the smaller change passed every test; labelled that entry as the one to keep.
Fri 09:30  exported the session to a colleague, who opened it in Pi without a conversion.
Fri 12:00  tidied these notes.
Mon 09:05  a new task in the same session: the summary of last week was all the model needed.
Mon 10:50  a tool call failed (a missing directory); the model said so instead of claiming it.
Mon 13:20  the reply was cut at the output limit; asked it to go on and it picked up mid-list.
Mon 15:35  pruned old tool outputs before compacting: cheaper, and the summary came out shorter.
Tue 09:10  the summarizer's model was down; the extractive summary kept the session going.
Tue 11:40  an MCP server for the issue tracker added to the settings; its tools asked first.
Tue 14:25  two daemons on one PostgreSQL store; the web UI followed the session to the other.
Tue 16:50  aborted a run that went the wrong way; what it had streamed stayed in the session.
Wed 10:15  labelled the entries worth coming back to, so the tree reads like a table of contents.
Wed 12:30  the threshold lowered for this session only, to compact earlier on a small model.
Wed 15:00  the week's work summarized into one checkpoint; the raw turns are still in the file.
Thu 09:20  opened the checkpoint in the tree: goal, done, in progress, next steps, all there.
Thu 11:45  branched from Tuesday's entry to try the other parser; compared the two branches.
Thu 14:10  kept the other parser; its branch summary says why the first one was dropped.
Fri 10:00  went through the week's sessions with pith list, newest first, one line each.
Fri 11:15  deleted two scratch sessions; the rest stay, each a file that can be read by hand.
Fri 16:30  set the permission mode to ask for the weekend's unattended runs: no surprises.

## Steering

A message sent while the model works is a steer: it goes in at the next point the model can take
it, usually after the tool call it is running, and the model changes course from there. A
follow-up waits until the run ends. Aborting stops the run at once and keeps what it streamed, so
nothing the model wrote is lost to a change of mind.

## The session file

The file is JSON lines, one entry a line, each with an id and the id of its parent. The first
line is the header: the session's id, when it started and the folder it works in. The format is
Pi's, so a session written here opens there and the other way round; older versions of the format
are migrated when they are opened, and the original is kept beside the new file.

## Costs

Each reply reports the tokens it read and wrote, and pith adds up what the session cost with the
model's prices. A summary costs a request of its own; written ahead of time it costs the same,
but nobody waits for it. Reading a repeated prefix from the provider's cache costs a tenth, which
is why a summary can be asked for as a continuation of the conversation the model already read.

## Prompts to try

Ask for the notes to be tidied, then ask what they say. Send a steer while the model is working
and watch it change its next step. Compact by hand and look at the tree: the turns are all still
there, with the summary beside them.

## Open questions

How long should a summary be? Too short and the model forgets why a decision was made; too long
and the compaction frees little. The checkpoint's sections help: each says one kind of thing, and
an update rewrites the sections instead of adding a new summary below the old one.

## What to watch in the demo

The meter shows how full the context is. When it passes the threshold, a compaction marker
appears, its summary streams in, and the meter drops. Compact... does the same on request, and
the tree shows the summary entry beside the turns it stands for.
`;
