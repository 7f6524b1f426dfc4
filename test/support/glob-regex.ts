// The regular-expression glob compiler pith used before the linear-time automaton in
// src/tools/glob.ts: kept here as the reference its property test compares with on small,
// harmless inputs (on hostile ones it backtracks for seconds, which is why it was replaced).

/** Compiles a glob to an anchored RegExp over "/"-separated paths. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${compile(glob, 0, false).source}$`);
}

interface Compiled {
  source: string;
  /** index after the last character consumed */
  end: number;
}

/** Compiles glob[i..] until the end, or (inside braces) until an unnested "," or "}". */
function compile(glob: string, i: number, inBraces: boolean): Compiled {
  let out = "";
  while (i < glob.length) {
    const c = glob[i];
    if (inBraces && (c === "," || c === "}")) break;
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
    } else if (c === "{") {
      const alts: string[] = [];
      let j = i + 1;
      let closed = false;
      while (j <= glob.length) {
        const part = compile(glob, j, true);
        alts.push(part.source);
        j = part.end;
        if (glob[j] === ",") {
          j++;
          continue;
        }
        if (glob[j] === "}") {
          closed = true;
          j++;
        }
        break;
      }
      if (closed) {
        out += `(?:${alts.join("|")})`;
        i = j;
      } else {
        // an unclosed "{" is just a character
        out += "\\{";
        i++;
      }
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return { source: out, end: i };
}

/** `[...]` at glob[i]; an unclosed "[" is a literal "[". */
function charClass(glob: string, i: number): Compiled {
  let j = i + 1;
  let negate = false;
  if (glob[j] === "!" || glob[j] === "^") {
    negate = true;
    j++;
  }
  let body = "";
  // a "]" right after the opening (or its "!") is a member, as in shells
  if (glob[j] === "]") {
    body += "\\]";
    j++;
  }
  while (j < glob.length && glob[j] !== "]") {
    const c = glob[j];
    if (c === "\\" && j + 1 < glob.length) {
      // escaped member: literal (a letter stays a letter, not a regex escape like \d)
      const next = glob[j + 1];
      body += /[A-Za-z0-9]/.test(next) ? next : `\\${next}`;
      j += 2;
    } else if (c === "-") {
      body += "-";
      j++;
    } else {
      body += /[\\\]^]/.test(c) ? `\\${c}` : c;
      j++;
    }
  }
  if (j >= glob.length) return { source: "\\[", end: i + 1 };
  // a class never matches the separator, like "*" and "?"
  return { source: negate ? `[^/${body}]` : `(?!/)[${body}]`, end: j + 1 };
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
