// The regular-expression glob compiler pith used before the linear-time automaton in
// src/tools/glob.ts: kept here as the reference its property test compares with on small,
// harmless inputs (on hostile ones it backtracks for seconds, which is why it was replaced).
//
// Braces are not parsed the way src/tools/glob.ts parses them (alternatives inside one recursive
// compile): they are expanded first, as a shell does, into brace-free globs (brace-expansion.ts),
// each compiled on its own, so a mistake in either way of reading braces shows as a disagreement.
import { expandBraces } from "./brace-expansion.js";
import { charClass } from "./glob-class.js";

/** Compiles a glob to an anchored RegExp over "/"-separated paths. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^(?:${expandBraces(glob).map((g) => compile(g)).join("|")})$`);
}

/** Compiles a brace-free glob ("{", "," and "}" are plain characters here). */
function compile(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === "\\" && i + 1 < glob.length) {
      out += escapeChar(glob[i + 1]);
      i += 2;
    } else if (c === "*") {
      if (glob[i + 1] === "*") {
        // "**" only has its any-depth meaning as a whole segment; elsewhere it is a plain "*"
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const next = glob[i + 2];
        if (atSegmentStart && next === "/") {
          out += "(?:[^/]*(?:/[^/]*)*/)?";
          i += 3;
        } else if (atSegmentStart && next === undefined) {
          out += ".*";
          i += 2;
        } else {
          out += "[^/]*";
          i += 2;
        }
      } else {
        out += "[^/]*";
        i++;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const cls = charClass(glob, i);
      out += cls.source;
      i = cls.end;
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
