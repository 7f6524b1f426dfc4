// A small glob matcher for find and grep's `glob` (no dependency). Supported:
//   *        any run of characters except "/"
//   **       any run of whole path segments (`**/` may match nothing: `**/*.ts` matches `a.ts`),
//            when it is a whole segment once the braces around it are expanded (`**/x`, `a/**`,
//            `{src/**,test/**}`, `{**/,}b`); anywhere else it is `*`, also beside a brace group
//            (`{,a}**`, which a shell would expand to a whole `**`: pith reads the glob's text and
//            never expands braces, which is exponential in the groups)
//   ?        one character except "/"
//   {a,b}    alternatives (nestable, each itself a glob)
//   [abc] [a-z] [!x] [^x]   a character class
//   \x       the character x, literally
// Dotfiles are not special: `*` matches `.env` (the tools search hidden files, like Pi's do).
//
// As with ripgrep's --glob and fd --glob (which Pi uses), a pattern without "/" is matched
// against the file's name at any depth (`*.ts` finds `src/a/b.ts`); a pattern with "/" is
// matched against the whole path relative to the search root.
//
// Globs come from the model, so matching must take time linear in the path whatever the pattern
// says: `*a*a*a*a*a*a*a*a*a*b` compiled to a backtracking regular expression takes seconds on a
// 36-character name and doubles with every `*a`. The glob is compiled to a Thompson automaton
// instead and run over a set of states: O(path length × pattern length), always.

/** One automaton state: consume a character that passes `test`, or branch without consuming. */
type State = { kind: "char"; test: (c: string) => boolean; out: number } | { kind: "split"; out: number; out2: number } | { kind: "match" };

/** A compiled piece with its dangling exits (patched to whatever follows). */
interface Fragment {
  start: number;
  /** states whose `out` (or `out2`, for "out2") is still to be set */
  holes: { state: number; field: "out" | "out2" }[];
}

const NOT_SLASH = (c: string) => c !== "/";
const ANY = () => true;

class Builder {
  readonly states: State[] = [];

  add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  patch(holes: Fragment["holes"], to: number): void {
    for (const h of holes) (this.states[h.state] as { out: number; out2: number })[h.field] = to;
  }

  char(test: (c: string) => boolean): Fragment {
    const s = this.add({ kind: "char", test, out: -1 });
    return { start: s, holes: [{ state: s, field: "out" }] };
  }

  /** Nothing: matches the empty string. */
  empty(): Fragment {
    const s = this.add({ kind: "split", out: -1, out2: -1 });
    // both exits lead on: a split whose branches meet again
    return { start: s, holes: [{ state: s, field: "out" }, { state: s, field: "out2" }] };
  }

  seq(parts: Fragment[]): Fragment {
    if (parts.length === 0) return this.empty();
    for (let i = 0; i + 1 < parts.length; i++) this.patch(parts[i].holes, parts[i + 1].start);
    return { start: parts[0].start, holes: parts[parts.length - 1].holes };
  }

  alt(options: Fragment[]): Fragment {
    if (options.length === 1) return options[0];
    let frag = options[options.length - 1];
    for (let i = options.length - 2; i >= 0; i--) {
      const s = this.add({ kind: "split", out: options[i].start, out2: frag.start });
      frag = { start: s, holes: [...options[i].holes, ...frag.holes] };
    }
    return frag;
  }

  /** Zero or more of `inner`. */
  star(inner: Fragment): Fragment {
    const s = this.add({ kind: "split", out: inner.start, out2: -1 });
    this.patch(inner.holes, s);
    return { start: s, holes: [{ state: s, field: "out2" }] };
  }

  /** Zero or one of `inner`. */
  optional(inner: Fragment): Fragment {
    const s = this.add({ kind: "split", out: inner.start, out2: -1 });
    return { start: s, holes: [...inner.holes, { state: s, field: "out2" }] };
  }
}

function literal(c: string): (x: string) => boolean {
  return (x) => x === c;
}

/**
 * Where the brace group being compiled stands: whether it opens a path segment and whether it
 * closes one, so that an option's own start and end count as segment edges for "**".
 */
interface BraceEdges {
  atSegmentStart: boolean;
  atSegmentEnd: boolean;
}

/** The index of the "}" closing the group opened at glob[i], or -1 when it is never closed. */
function closingBrace(glob: string, i: number): number {
  let depth = 0;
  for (let j = i; j < glob.length; j++) {
    const c = glob[j];
    if (c === "\\") j++;
    else if (c === "[") j = charClass(glob, j).end - 1;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return j;
  }
  return -1;
}

/** Compiles glob[i..] until its end, or (inside braces) until an unnested "," or "}". */
function compile(b: Builder, glob: string, i: number, braces?: BraceEdges): { frag: Fragment; end: number } {
  const parts: Fragment[] = [];
  const optionStart = i;
  /** glob[k] starts a path segment, counting this option's start when its group starts one */
  const segmentStartAt = (k: number) => k === 0 || glob[k - 1] === "/" || (k === optionStart && braces?.atSegmentStart === true);
  /** glob[k] (the character after a piece) ends a path segment, counting this option's end likewise */
  const segmentEndAt = (k: number) =>
    glob[k] === "/" || (braces ? (glob[k] === "," || glob[k] === "}") && braces.atSegmentEnd : k >= glob.length);
  while (i < glob.length) {
    const c = glob[i];
    if (braces && (c === "," || c === "}")) break;
    if (c === "\\" && i + 1 < glob.length) {
      parts.push(b.char(literal(glob[i + 1])));
      i += 2;
    } else if (c === "*") {
      if (glob[i + 1] === "*") {
        // "**" only has its any-depth meaning as a whole segment; elsewhere it is a plain "*"
        const atSegmentStart = segmentStartAt(i);
        const next = glob[i + 2];
        if (atSegmentStart && next === "/") {
          // any run of whole segments, each ending in "/": (.*/)?
          parts.push(b.optional(b.seq([b.star(b.char(ANY)), b.char(literal("/"))])));
          i += 3;
        } else if (atSegmentStart && segmentEndAt(i + 2)) {
          parts.push(b.star(b.char(ANY)));
          i += 2;
        } else {
          parts.push(b.star(b.char(NOT_SLASH)));
          i += 2;
        }
      } else {
        parts.push(b.star(b.char(NOT_SLASH)));
        i++;
      }
    } else if (c === "?") {
      parts.push(b.char(NOT_SLASH));
      i++;
    } else if (c === "[") {
      const cls = charClass(glob, i);
      parts.push(b.char(cls.test));
      i = cls.end;
    } else if (c === "{") {
      const options: Fragment[] = [];
      const close = closingBrace(glob, i);
      const edges = { atSegmentStart: segmentStartAt(i), atSegmentEnd: close >= 0 && segmentEndAt(close + 1) };
      let j = i + 1;
      let closed = false;
      while (j <= glob.length) {
        const part = compile(b, glob, j, edges);
        options.push(part.frag);
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
        parts.push(b.alt(options));
        i = j;
      } else {
        // an unclosed "{" is just a character (the states built for its options are left unreachable)
        parts.push(b.char(literal("{")));
        i++;
      }
    } else {
      parts.push(b.char(literal(c)));
      i++;
    }
  }
  return { frag: b.seq(parts), end: i };
}

/** `[...]` at glob[i]; an unclosed "[" is a literal "[". A class never matches "/". */
function charClass(glob: string, i: number): { test: (c: string) => boolean; end: number } {
  let first = i + 1;
  let negate = false;
  if (glob[first] === "!" || glob[first] === "^") {
    negate = true;
    first++;
  }
  // find the closing "]" first (a "]" right after the opening, or its "!", is a member, as in shells)
  let close = glob[first] === "]" ? first + 1 : first;
  while (close < glob.length && glob[close] !== "]") close += glob[close] === "\\" && close + 1 < glob.length ? 2 : 1;
  if (close >= glob.length) return { test: literal("["), end: i + 1 };
  const singles = new Set<string>();
  const ranges: [number, number][] = [];
  let j = first;
  const next = () => {
    const c = glob[j] === "\\" && j + 1 < close ? glob[++j] : glob[j];
    j++;
    return c;
  };
  while (j < close) {
    const c = next();
    // a range: c-d, unless the "-" is last
    if (glob[j] === "-" && j + 1 < close) {
      j++;
      const d = next();
      const lo = c.codePointAt(0)!;
      const hi = d.codePointAt(0)!;
      if (lo > hi) throw new Error(`range out of order in character class: ${c}-${d}`);
      ranges.push([lo, hi]);
    } else singles.add(c);
  }
  const member = (c: string) => {
    if (singles.has(c)) return true;
    const code = c.codePointAt(0)!;
    return ranges.some(([lo, hi]) => code >= lo && code <= hi);
  };
  return { test: (c) => c !== "/" && member(c) !== negate, end: close + 1 };
}

/** A compiled glob: an automaton over the characters of a path, anchored at both ends. */
export class CompiledGlob {
  private readonly states: State[];
  private readonly start: number;
  /** per state, the step at which it was last added to a state list (no Set per character) */
  private readonly seen: Int32Array;
  private step = 0;

  constructor(glob: string) {
    const b = new Builder();
    const { frag } = compile(b, glob, 0);
    const match = b.add({ kind: "match" });
    b.patch(frag.holes, match);
    this.states = b.states;
    this.start = frag.start;
    this.seen = new Int32Array(this.states.length).fill(-1);
  }

  /** Adds `s` and every state reachable from it without consuming a character to `into`. */
  private close(s: number, into: number[]): void {
    const stack = [s];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (this.seen[x] === this.step) continue;
      this.seen[x] = this.step;
      const st = this.states[x];
      if (st.kind === "split") stack.push(st.out2, st.out);
      else into.push(x);
    }
  }

  /** `stats.steps` (when given) counts the states visited: the work done, for tests that check it stays linear. */
  matches(text: string, stats?: { steps: number }): boolean {
    this.step++;
    let current: number[] = [];
    this.close(this.start, current);
    // by code point, as a regular expression with the u flag would (a class may hold an emoji)
    for (const c of text) {
      this.step++;
      const next: number[] = [];
      if (stats) stats.steps += current.length;
      for (const s of current) {
        const st = this.states[s];
        if (st.kind === "char" && st.test(c)) this.close(st.out, next);
      }
      if (next.length === 0) return false;
      current = next;
    }
    return current.some((s) => this.states[s].kind === "match");
  }
}

export type PathMatcher = (relativePath: string) => boolean;

/** Whether `path` as a whole matches `glob` (no name-only rule). Throws on an invalid class range. */
export function globMatches(glob: string, path: string): boolean {
  return new CompiledGlob(glob).matches(path);
}

/** A test for paths relative to the search root, with the name-only rule for slash-less patterns. */
export function globMatcher(glob: string): PathMatcher {
  let pattern = glob.trim();
  while (pattern.startsWith("./")) pattern = pattern.slice(2);
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const compiled = new CompiledGlob(pattern);
  if (!pattern.includes("/")) return (rel) => compiled.matches(rel.slice(rel.lastIndexOf("/") + 1));
  return (rel) => compiled.matches(rel);
}
