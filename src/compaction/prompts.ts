// Prompts for the summarizer, in pith's own words. The transcript goes inside <transcript>
// tags and the instructions after it, so the model reads a record instead of joining a chat.

export const SUMMARIZER_SYSTEM_PROMPT = `You write handover notes for a coding agent. You are given the transcript of a working session between a user and an AI coding assistant. Another instance of the assistant will continue the work from your notes alone, without the transcript.

Never reply to the user, answer questions from the transcript, or carry on the work yourself. Output only the notes, in the format you are asked for.`;

export const FORMAT = `## Goal
What the user wants done. Several goals if the session moved between tasks.

## Constraints & Preferences
- Requirements, rules and preferences the user stated (exact wording where it matters), or "(none)".

## Progress
### Done
- [x] Finished work, with the files and functions involved.

### In Progress
- [ ] Work started but not finished, and how far it got.

### Blocked
- Problems that stop progress, with the exact error text, or "(none)".

## Key Decisions
- **Decision**: why it was made.

## Next Steps
1. What to do next, in order.

## Critical Context
- Facts the next assistant cannot do without: paths, names, commands, values, error messages, or "(none)".`;

export const RULES = `Keep every section short. Copy file paths, identifiers, commands and error messages exactly.`;

export interface PromptOptions {
  /** extra focus the user asked for ("focus on the database migration") */
  instructions?: string;
  /** the previous summary uses more than half the output budget: ask for compression */
  compressDone?: boolean;
}

export function tail(options: PromptOptions): string {
  let text = "";
  if (options.compressDone) {
    text += `\n\nThe existing notes are getting long. Fold older "Done" items into a few one-line entries that keep only what later work depends on.`;
  }
  if (options.instructions && options.instructions.trim()) {
    text += `\n\nThe user asked that these notes pay particular attention to: ${options.instructions.trim()}`;
  }
  return text;
}

function transcriptBlock(transcript: string): string {
  return `<transcript>\n${transcript}\n</transcript>`;
}

/** First summary of a session. */
export function initialPrompt(transcript: string, options: PromptOptions = {}): string {
  return `${transcriptBlock(transcript)}

Write handover notes for the session above in exactly this format:

${FORMAT}

${RULES}${tail(options)}`;
}

/** Folds a new stretch of the session into existing notes instead of starting over. */
export function updatePrompt(transcript: string, previousSummary: string, options: PromptOptions = {}): string {
  return `<existing-notes>
${previousSummary}
</existing-notes>

${transcriptBlock(transcript)}

The existing notes cover the session up to the transcript above, which is what happened next. Rewrite the notes so they cover both:
- keep everything from the existing notes that still holds;
- add the new goals, constraints, decisions and facts;
- move finished items from "In Progress" to "Done", and drop blockers that were resolved;
- replace "Next Steps" with what follows from where the session now stands.

Use exactly this format:

${FORMAT}

${RULES}${tail(options)}`;
}

/** The early part of a turn too long to keep whole; its end stays in the context verbatim. */
export function turnPrefixPrompt(transcript: string): string {
  return `${transcriptBlock(transcript)}

The transcript above is the beginning of one long turn. The rest of that turn stays in the context word for word, right after your notes, so describe only what is needed to make sense of it:

## Turn Request
What the user asked for in this turn.

## Work So Far
- What was done and decided in this part of the turn.

## Context for What Follows
- Files, values and findings the rest of the turn relies on.

${RULES}`;
}

/** Notes on a branch the user is leaving, to carry into the branch they go to. */
export function branchPrompt(transcript: string, options: PromptOptions = {}): string {
  return `${transcriptBlock(transcript)}

The user explored the work above on a side branch and is now going back to an earlier point of the session. Write notes on what that branch tried and found, so the work that continues from the earlier point can use it. Use exactly this format:

${FORMAT}

${RULES}${tail(options)}`;
}
