// `pith mcp`: the MCP servers a session started here would get, each started as a session would
// start it (the same connections, from this directory), with its tools or why it failed, then all
// stopped again. It answers "why does the model not see my server's tools?" without a daemon. The
// servers come from the user's settings only; a project file that names some is said to be ignored.
import type { McpServerInfo } from "../../protocol/mcp.js";
import type { Logger } from "../log/logger.js";
import { SessionServers, mergeServerEntries } from "../mcp/session-servers.js";
import { resolveSettings, userSettingsFile, type SettingsWarning } from "../host/policy/settings.js";
import { printErr, printJsonLine, printOut } from "./terminal-out.js";

export interface McpCommandOptions {
  json: boolean;
  /** warn level at least: a server that fails is said once by the listing, its log line beside it */
  log: Logger;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** 0: every enabled server is ready; 1: one failed; 2: the settings cannot be read. */
export async function runMcpCommand(o: McpCommandOptions): Promise<number> {
  const env = o.env ?? process.env;
  const cwd = o.cwd ?? process.cwd();
  let settings, warnings: SettingsWarning[];
  try {
    ({ settings, warnings } = resolveSettings(cwd, env));
  } catch (err) {
    printErr(`pith: ${(err as Error).message}\n`);
    return 2;
  }
  // the project file's servers are not used; a skipped file ("*") may have named some too
  for (const w of warnings) if (w.key === "mcpServers" || w.key === "*") printErr(`pith: warning: ${w.message}\n`);
  const entries = mergeServerEntries(settings.mcpServers, undefined);
  const servers = new SessionServers(entries, { cwd, env, logger: o.log, onChange: () => undefined });
  let list: McpServerInfo[];
  try {
    // every server settles (ready or failed), each within its own startup timeout
    await servers.tools();
    list = servers.list();
  } finally {
    await servers.close();
  }
  if (o.json) printJsonLine({ servers: list });
  else printOut(listing(list, userSettingsFile(env), cwd));
  return list.some((s) => s.state === "failed" || s.state === "connecting") ? 1 : 0;
}

function listing(list: readonly McpServerInfo[], file: string, cwd: string): string {
  if (list.length === 0) return `no MCP servers in ${file} ("mcpServers")\n`;
  const lines = [`MCP servers in ${file}, started in ${cwd}:`];
  for (const s of list) {
    const tools = s.state === "ready" ? `  ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}` : "";
    lines.push(`${s.name}  (${s.transport})  ${s.state === "disabled" ? "disabled (not started)" : s.state}${tools}`);
    if (s.state === "failed") lines.push(`  failed: ${s.error ?? "no reason given"}`);
    const width = Math.max(0, ...s.tools.map((t) => t.name.length));
    const own = Math.max(0, ...s.tools.map((t) => t.serverName.length));
    // the model's name, the server's, and what the permission modes make of it
    for (const t of s.tools) lines.push(`  ${t.name.padEnd(width)}  ${t.serverName.padEnd(own)}  ${t.readOnly ? "read-only" : "not read-only (asked in ask mode, refused in readonly)"}`);
  }
  return lines.join("\n") + "\n";
}
