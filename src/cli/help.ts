// What `pith --help` and `pith <command> --help` print. A usage error prints its one line and
// the command's own usage (main.ts), never the whole page.
import { delimiter } from "node:path";
import type { CommandName } from "./args.js";

export const USAGE = `pith — hosts coding-agent sessions and keeps them going past the context window

usage:
  pith serve [--host H] [--port P] [--token-file F] [--tls-cert FILE --tls-key FILE]
             [--allow-origin O]... [--stdio] [--idle-unload S]
                             the daemon over WebSocket at /rpc (and the web UI at /); --stdio adds
                             JSON-RPC on stdin/stdout, sharing the sessions; sessions nobody is
                             subscribed to are unloaded after S seconds idle (default 600, 0: never).
                             The token (at least 16 characters): --token-file F, PITH_TOKEN, else
                             $PITH_HOME/token (made once, kept across restarts); --token T works
                             but ps shows it. With a certificate and its key (PEM), https:// and
                             wss:// instead
  pith --mode rpc            the daemon over stdin/stdout (JSON-RPC 2.0, one message per line)
  pith acp                   the Agent Client Protocol over stdin/stdout, for editors (docs/acp.md)
  pith -p "prompt" | pith --mode text [--session S | --continue] [--model ID] "prompt"
                             run one prompt; its final reply on stdout, tool activity on stderr
  pith --mode json [--session S | --continue] [--model ID] "prompt"
                             run one prompt headless; every event is a JSON line on stdout, then
                             one {"type":"result",...} line
  pith demo                  the offline demo: a scratch project in /tmp (pith-demo-XXXXXX), one
                             prompt, the reply, its tool calls and a compaction streamed
  pith tree <session>        print a session's tree (branches, labels, the active leaf)
  pith context <session>     print the messages the model sees for the active leaf
  pith list [--cwd <dir>]    list the store's sessions, newest first
  pith store import <file>...            copy session files into the PostgreSQL store
  pith store export <id> [--out <file>]  write a session of the PostgreSQL store as a session file
  pith models [--refresh] [--json]
                             the providers and models usable here: each key, whether each server
                             answered, each window and where it comes from (docs/providers.md)
  pith mcp [--json]          the MCP servers of your settings, each started here: its tools (the
                             model's name, the server's, read-only or not) or why it failed; then
                             stopped. Exit 1 when one failed (docs/mcp.md)
  pith eval [--model M] [--summarizer M] [--judge M] [--cycles 1|2] [--framing F] [--cases DIR]
            [--case NAME]... [--compare KEY=A,B] [--json FILE] [--baseline FILE]
                             measure what compaction keeps: compacts each case (pith's own, or a
                             folder of yours) as a session would, asks the model probe questions,
                             scores the answers beside a floor and a ceiling (docs/eval.md)
  pith token [--rotate]      print the path of $PITH_HOME/token (made if missing); --rotate makes
                             a new token (running daemons keep the old one until restarted)
  pith --help | --version

Each command takes only its own options; \`pith <command> --help\` shows them. A <session> is a
session file, a session id or its first 8 characters. Files are opened read-only by tree and
context: old formats are migrated in memory only. --json (tree, context, list, models, mcp): machine-readable output;
--log-level <level> (any command): logs on stderr.
What the model's tools may do (serve, --mode rpc | json, acp; over settings.json, docs/security.md):
  --sandbox workspace-write|readonly|off   --sandbox-network on|off
  --permission-mode auto|ask|readonly      --allow-outside-cwd
The session store (serve, --mode rpc | json, acp, list, store):
  --store postgres://...|file   PostgreSQL, or (the default) files under $PITH_HOME/sessions; a URL
                                with a password: --store-file F (a file holding it) or PITH_STORE
  with PostgreSQL, this node of a cluster: --node-id ID (A-Z a-z 0-9 _ . -, up to 64)
  --node-url ws[s]://...  (where the other nodes reach it)
  --cluster-token-file F | PITH_CLUSTER_TOKEN  (A-Z a-z 0-9 _ -; --cluster-token T: ps shows it)
  --tls-ca F | PITH_TLS_CA  (serve, --mode rpc: the CA wss:// nodes' certificates chain to)
  --trusted-network  (serve, --mode rpc: allow plain ws:// links to other machines)
  --workspace-root DIR... (serve, --mode rpc | json, acp: the directories this node reaches; it
  takes only sessions whose cwd is under one, and sends clients of the others to a node that does)
Environment: PITH_HOME (default ~/.pith), PITH_LOG_LEVEL, PITH_LOG_FORMAT (json|pretty), PITH_TOKEN, PITH_TLS_CA, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL (with neither key nor a model in settings,
sessions run the offline demo model; PITH_DEMO_PACE_MS its pace), PITH_STORE,
PITH_NODE_ID, PITH_NODE_URL, PITH_CLUSTER_TOKEN, PITH_WORKSPACE_ROOTS (DIR${delimiter}DIR...) (the store
options; an option wins over its variable)`;

/** The commands in a few lines: what a usage error without a command (or a bare pith's) shows. */
export const COMMANDS_USAGE = `usage:
  pith serve  the daemon and the web UI      pith -p "prompt"  one prompt, the reply on stdout
  pith --mode rpc | json | text              pith acp          for editors (Agent Client Protocol)
  pith demo   the offline demo               pith list | tree <session> | context <session>
  pith models | mcp | eval | token | store import|export
pith <command> --help shows a command's options.`;

const TOOL_FLAGS = "  --sandbox workspace-write|readonly|off  --sandbox-network on|off\n  --permission-mode auto|ask|readonly     --allow-outside-cwd";
const STORE_FLAGS = "  --store postgres://...|file  (--store-file F, PITH_STORE)  and, with PostgreSQL, --node-id,\n  --node-url, --cluster-token-file (pith --help has them all)";
const RUN = "[--session S | --continue] [--model ID] [tool and store options]";

/** Each command's own usage: what it does, what it takes (a few lines, never the whole page). */
export const COMMAND_USAGE: Record<CommandName, string> = {
  serve: `usage: pith serve [--host H] [--port P] [--token-file F] [--tls-cert FILE --tls-key FILE]
                  [--allow-origin O]... [--stdio] [--idle-unload S] [tool and store options]
The daemon over WebSocket at /rpc, with the web UI at /. The token: --token-file F, PITH_TOKEN,
else $PITH_HOME/token (kept across restarts; pith token --rotate makes a new one).
${TOOL_FLAGS}
${STORE_FLAGS}`,
  "--mode rpc": `usage: pith --mode rpc [tool and store options]
The daemon over stdin/stdout: JSON-RPC 2.0, one message per line (protocol/PROTOCOL.md).
${TOOL_FLAGS}
${STORE_FLAGS}`,
  "--mode json": `usage: pith --mode json ${RUN} "prompt"
Runs one prompt headless: the session header, every event as a JSON line on stdout, then one
{"type":"result","stopReason","text","usage","cost"} line. Exit 0 when the run ends normally.
<session>: a session file, id or its first 8 characters.
${TOOL_FLAGS}
${STORE_FLAGS}`,
  "--mode text": `usage: pith -p "prompt" | pith --mode text ${RUN} "prompt"
Runs one prompt: the final reply on stdout, one line per tool call on stderr. Exit 0 when the
run ends normally. <session>: a session file, id or its first 8 characters.
${TOOL_FLAGS}
${STORE_FLAGS}`,
  acp: `usage: pith acp [tool and store options]
The Agent Client Protocol over stdin/stdout, for editors (docs/acp.md).
${TOOL_FLAGS}
${STORE_FLAGS}`,
  demo: `usage: pith demo
The offline demo: makes a scratch project in the system's temporary directory (pith-demo-XXXXXX
under $TMPDIR, else /tmp), runs "Tidy up the notes" on it with the offline model and streams the
reply, the tool calls and the compaction; the session is stored under $PITH_HOME as any other.
Then it shows how to look at the session it made.`,
  tree: `usage: pith tree <session> [--json]
Prints a session's tree: branches, labels, the active leaf. <session>: a session file, a session
id, or its first 8 characters (pith list shows them).`,
  context: `usage: pith context <session> [--json]
Prints the messages the model sees for the active leaf. <session>: a session file, a session id,
or its first 8 characters (pith list shows them).`,
  list: `usage: pith list [--cwd DIR] [--json] [store options]
Lists the store's sessions, newest first (only those of DIR with --cwd).
${STORE_FLAGS}`,
  "store import": `usage: pith store import <file>... --store postgres://...
Copies session files into the PostgreSQL store.`,
  "store export": `usage: pith store export <id> [--out FILE] --store postgres://...
Writes a session of the PostgreSQL store as a session file (stdout without --out).`,
  token: `usage: pith token [--rotate]
Prints the path of $PITH_HOME/token (made if missing); --rotate makes a new token (running
daemons keep the old one until restarted).`,
  models: `usage: pith models [--refresh] [--json]
The providers and models usable here: each key, whether each server answered, each window and
where it comes from (docs/providers.md).`,
  mcp: `usage: pith mcp [--json]
Starts each MCP server of your settings ($PITH_HOME/settings.json, "mcpServers") in the current
directory, as a session started here would, and prints its transport, its state and its tools (the
model's name, the server's name, read-only or not), or why it failed; disabled ones are listed, not
started. Every server is stopped before it exits. A project's .pith/settings.json may not add servers:
one that names some is reported as ignored. Exit 0 when every enabled server is ready, 1 when one
failed, 2 when the settings are invalid. --json: {"servers": [...]}, as listMcpServers answers.`,
  eval: `usage: pith eval [--model M] [--summarizer M] [--judge M] [--cycles 1|2] [--framing conversation|transcript]
                 [--cases DIR] [--case NAME]... [--compare KEY=A,B] [--json FILE] [--baseline FILE]
Measures what compaction keeps (docs/eval.md). Each case is replayed into a session and compacted
with pith's own compaction where your window and settings would compact it, and at its end
(--cycles 2: at its midpoint too); then the model (--model, default: your settings') is asked probe
questions in the compacted context: planted facts (recall), the files touched (artifacts), the next task
(continuation) and the settled approaches (decisions), scored 0-1 without a judge; with --judge M,
free-form questions graded 0-5 by that model, blind to the configuration. Beside each score: the
floor (a summary that keeps nothing) and the ceiling (no compaction, when the case fits).
  --summarizer M   the model that writes the summaries (default: your settings' compaction.model, else --model)
  --framing F      how the summary is asked for: conversation or transcript (default: your settings')
  --cases DIR      your own cases: NAME.jsonl (a session file) and NAME.truth.json side by side
                   (default: pith's own, generated; npm run eval:cases writes them out)
  --case NAME      only this case (repeatable)
  --compare KEY=A,B  configurations side by side on the same cases: framing=conversation,transcript,
                   summarizer=M1,M2 or model=M1,M2
  --json FILE      everything (every answer) as JSON
  --baseline FILE  an earlier run's --json report, its figures in a column beside this run's (to
                   compare a change with no setting, such as a summarizer prompt, before and after)
Progress goes to stderr; Ctrl-C stops with what was measured so far (exit 130). Offline (no model
configured) the scripted demo model runs the whole flow; its scores mean nothing, and it says so.
Exit 0 when done, 1 when no case could be measured, 2 on bad usage.`,
};
