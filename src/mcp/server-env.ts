// The environment an MCP server from the user's settings (or the editor's) runs with. Servers are
// the user's own programs and run outside the sandbox, but not with the daemon's environment: they
// get the same allow-listed base the model's commands get (tools/tool-env.ts: PATH, HOME, locale
// and the like, never pith's token, the store's URL or the providers' keys), plus what their entry
// gives: `env` as written, `passEnv` copied from the daemon's environment by name. Naming a
// variable is the one way a server gets a secret, so an entry shows what each server can read.
import { toolEnvironment } from "../tools/tool-env.js";

export interface ServerEnvEntry {
  env?: Record<string, string>;
  passEnv?: readonly string[];
}

export function serverEnvironment(entry: ServerEnvEntry, daemonEnv: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = toolEnvironment(daemonEnv);
  for (const name of entry.passEnv ?? []) {
    const value = daemonEnv[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...entry.env };
}
