// The slash commands pith offers an ACP client, and reading them back out of a prompt. ACP has
// no command request: the client lists the commands (available_commands_update) and sends the
// user's `/compact focus on the API` as an ordinary prompt, which the agent recognizes here.
// Names go out without the slash, as ACP expects; a prompt must start with the exact name
// (`/compactfoo` is a prompt, not a command).
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { UpdateOf } from "./content.js";

const AVAILABLE_COMMANDS: readonly AvailableCommand[] = [
  {
    name: "compact",
    description: "Summarize the conversation so far to free context; the summary replaces the older messages for the model",
    input: { hint: "optional instructions for the summary" },
  },
  {
    name: "autocompact",
    description: "Turn automatic compaction on or off for this session",
    input: { hint: "on | off" },
  },
];

export function availableCommandsUpdate(): UpdateOf<"available_commands_update"> {
  return { sessionUpdate: "available_commands_update", availableCommands: AVAILABLE_COMMANDS.map((c) => ({ ...c, input: c.input ? { ...c.input } : c.input })) };
}

export type ParsedCommand =
  | { name: "compact"; instructions?: string }
  | { name: "autocompact"; enabled: boolean }
  | { name: "autocompact"; error: string };

const ON = new Set(["on", "true", "yes", "enable", "enabled", "1"]);
const OFF = new Set(["off", "false", "no", "disable", "disabled", "0"]);

/** The command a prompt's text is, or null for an ordinary prompt. */
export function parseCommand(text: string): ParsedCommand | null {
  const m = /^\s*\/(compact|autocompact)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return null;
  const rest = (m[2] ?? "").trim();
  if (m[1] === "compact") return rest.length > 0 ? { name: "compact", instructions: rest } : { name: "compact" };
  const word = rest.toLowerCase();
  if (ON.has(word)) return { name: "autocompact", enabled: true };
  if (OFF.has(word)) return { name: "autocompact", enabled: false };
  return { name: "autocompact", error: rest.length === 0 ? "Say on or off: /autocompact on" : `Unknown setting "${rest}": use /autocompact on or /autocompact off` };
}
