// `[...]` in the reference glob compiler (glob-regex.ts), and where one ends for its brace
// expansion (brace-expansion.ts), which must step over a class's braces and commas.

/** A class compiled to regular-expression source, and the index after it. */
export interface CompiledClass {
  source: string;
  /** index after the last character consumed */
  end: number;
}

/** `[...]` at glob[i]; an unclosed "[" is a literal "[". */
export function charClass(glob: string, i: number): CompiledClass {
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
