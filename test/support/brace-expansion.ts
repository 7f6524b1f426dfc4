// Shell-style brace expansion for the reference glob compiler (glob-regex.ts): "x{a,b}y" becomes
// "xay" and "xby". It reads braces on its own terms, not the way src/tools/glob.ts does (which
// compiles the options in place, recursively): find the first group's closing brace by counting
// depth, split the group at its top-level commas, and expand each option with what surrounds it.
// It keeps what the rest of a glob means: "\x" is x whatever x is, a "[...]" class holds braces
// and commas as members, and a "{" without its "}" is a plain "{" (written "\{" in the result).
import { charClass } from "./glob-class.js";

/** Every brace-free glob `glob` stands for, in order. */
export function expandBraces(glob: string): string[] {
  for (let i = 0; i < glob.length; i = next(glob, i)) {
    if (glob[i] !== "{") continue;
    const group = groupAt(glob, i);
    const before = glob.slice(0, i);
    if (!group) return expandBraces(glob.slice(i + 1)).map((rest) => `${before}\\{${rest}`);
    const after = glob.slice(group.close + 1);
    return group.options.flatMap((option) => expandBraces(before + option + after));
  }
  return [glob];
}

/** The group opened at glob[open]: its options (unexpanded) and where its "}" is; undefined if unclosed. */
function groupAt(glob: string, open: number): { options: string[]; close: number } | undefined {
  let depth = 1;
  let from = open + 1;
  const options: string[] = [];
  for (let j = open + 1; j < glob.length; j = next(glob, j)) {
    const c = glob[j];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      options.push(glob.slice(from, j));
      return { options, close: j };
    } else if (c === "," && depth === 1) {
      options.push(glob.slice(from, j));
      from = j + 1;
    }
  }
  return undefined;
}

/** The index after the character (an escape pair, a closed class) at glob[i]. */
function next(glob: string, i: number): number {
  if (glob[i] === "\\" && i + 1 < glob.length) return i + 2;
  if (glob[i] === "[") return charClass(glob, i).end;
  return i + 1;
}
