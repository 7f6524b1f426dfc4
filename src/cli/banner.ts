// The lines `pith serve` prints on stderr when it listens: where, how to open it, which token it
// uses and where that comes from, and how the model's bash is confined. Said at every start, so
// a user sees an unsandboxed daemon without reading settings.json.
import { sandboxSummary } from "../host/policy/tool-policy.js";
import { resolveSettings, type Settings } from "../host/policy/settings.js";

/** How the token was given: a flag, a file flag, the variable, or $PITH_HOME/token. */
export type TokenOrigin = { from: "--token" | "--token-file" | "PITH_TOKEN"; file?: string } | { from: "home"; file: string; created: boolean };

/** The user's settings (files and flags) as the daemon's sessions start from them; undefined if unreadable. */
function startSettings(flags: Settings): Settings | undefined {
  try {
    return resolveSettings(process.cwd(), process.env, flags).settings;
  } catch {
    return undefined; // a bad settings file is reported when a session needs it
  }
}

function tokenLine(origin: TokenOrigin): string {
  switch (origin.from) {
    case "home":
      return `token file: ${origin.file} (${origin.created ? "made now" : "kept"} across restarts; \`pith token --rotate\` makes a new one)`;
    case "--token-file":
      return `token: from --token-file ${origin.file}`;
    default:
      return `token: from ${origin.from}`;
  }
}

export function serveBanner(o: { url: string; token: string; origin: TokenOrigin; flags: Settings; offline: boolean }): string {
  const settings = startSettings(o.flags);
  const lines = [
    `pith serving on ${o.url} (WebSocket at /rpc)`,
    `  open: ${o.url}/#token=${o.token}`,
    `  ${tokenLine(o.origin)}`,
    `  ${settings ? sandboxSummary(settings) : "sandbox: unknown (settings.json cannot be read)"}`,
  ];
  if (o.offline) lines.push("  no model set and no ANTHROPIC_API_KEY or OPENAI_API_KEY: sessions run the offline scripted demo (pith models)");
  return lines.join("\n") + "\n";
}
