// `--permission-mode ask` on a terminal (`pith -p`): the question the session asks before a tool
// that is not read-only, put to the person at the terminal. The question goes to stderr (stdout
// stays the reply), the answer is a line read from the terminal: a (allow), l (allow always,
// for the rest of this run), d or nothing (deny). Joined to the session like any client that
// answers requestPermission, so the host's rules (timeouts, aborts) are the same.
import { createInterface } from "node:readline";
import type { QuestionClient } from "../host/ports.js";
import { printErr } from "./terminal-out.js";

const ANSWERS: Record<string, "allow" | "allowAlways" | "deny"> = { a: "allow", allow: "allow", y: "allow", yes: "allow", l: "allowAlways", always: "allowAlways", d: "deny", deny: "deny", n: "deny", no: "deny", "": "deny" };

function what(params: { toolName?: unknown; args?: unknown }): string {
  const args = (params.args ?? {}) as Record<string, unknown>;
  const target = args.path ?? args.command ?? args.pattern;
  return `${String(params.toolName)}${typeof target === "string" ? ` ${target.replace(/\s+/g, " ").slice(0, 100)}` : ""}`;
}

export function terminalAsker(input: NodeJS.ReadableStream = process.stdin): QuestionClient {
  return {
    answers: (method) => method === "requestPermission",
    ask(_method, params, withdrawn) {
      return new Promise((resolve) => {
        const rl = createInterface({ input, terminal: false });
        // resolved before the close, whose own handler (the terminal went away: deny) would come first
        const done = (outcome: string) => {
          resolve({ outcome });
          rl.close();
        };
        withdrawn.addEventListener("abort", () => done("cancel"), { once: true });
        const question = () => printErr(`pith: allow ${what(params as { toolName?: unknown; args?: unknown })}? [a]llow, al[l]ways, [d]eny: `);
        question();
        rl.on("line", (line) => {
          const outcome = ANSWERS[line.trim().toLowerCase()];
          if (outcome) done(outcome);
          else question();
        });
        rl.on("close", () => resolve({ outcome: "deny" }));
      });
    },
  };
}
