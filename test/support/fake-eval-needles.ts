// How the fake eval models tell whether a piece of a case's truth is in the text they were shown:
// the only way they "know" anything. Each check is on the text, never on the truth alone.
import type { Truth } from "../../src/eval/truth.js";

const PATH_CHAR = /[A-Za-z0-9_\-/]/;

/** A text a model was shown, lowercased once: contexts run to a megabyte and get many questions. */
export class Shown {
  readonly lower: string;
  constructor(readonly raw: string) {
    this.lower = raw.toLowerCase();
  }

  /** a fact's answer, an approach's name, a keyword: anywhere, case-insensitive */
  mentions(token: string): boolean {
    return token.length > 0 && this.lower.includes(token.toLowerCase());
  }

  /** a path as a whole: `src/a.ts` is not in `src/a.tsx` nor `xsrc/a.ts`, but is in `./src/a.ts` and `/home/dev/p/src/a.ts` */
  mentionsPath(path: string): boolean {
    const text = this.raw;
    for (let at = text.indexOf(path); at >= 0 && path; at = text.indexOf(path, at + 1)) {
      const before = text[at - 1] ?? " ";
      const after = text[at + path.length] ?? " ";
      const afterNext = text[at + path.length + 1] ?? " ";
      const cleanBefore = !/[A-Za-z0-9_.-]/.test(before);
      const cleanAfter = !PATH_CHAR.test(after) && !(after === "." && /[A-Za-z0-9]/.test(afterNext));
      if (cleanBefore && cleanAfter) return true;
    }
    return false;
  }

  /** the share of `words` (lowercased) found here; 0 for no words */
  shareFound(words: readonly string[]): number {
    return words.length === 0 ? 0 : words.filter((w) => this.lower.includes(w)).length / words.length;
  }
}

/** the words that carry a text's meaning: six letters or more, lowercased, each once */
export function distinctiveWords(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => w.length >= 6))];
}

/** a reference's sentences, each with its distinctive words */
function sentences(reference: string): { text: string; words: string[] }[] {
  return reference
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((text) => ({ text, words: distinctiveWords(text) }));
}

/** a sentence "is known" from `text` when at least half its distinctive words are there */
export function knownSentences(reference: string, shown: Shown): string[] {
  return sentences(reference).filter((s) => s.words.length > 0 && shown.shareFound(s.words) >= 0.5).map((s) => s.text);
}

const allPaths = (t: Truth) => [...t.artifacts.read, ...t.artifacts.modified, ...t.artifacts.created, ...t.artifacts.deleted];

/** how many of a truth's needles the text holds: to tell which case a request is about */
function needlesFound(t: Truth, shown: Shown): number {
  return (
    t.facts.filter((f) => shown.mentions(f.answer)).length +
    allPaths(t).filter((p) => shown.mentionsPath(p)).length +
    t.decisions.filter((d) => shown.mentions(d.chosen)).length +
    t.openTasks.filter((o) => o.keywords.every((k) => shown.mentions(k))).length
  );
}

/** the truths, those whose needles the text holds most first (stable otherwise) */
export function rankTruths(truths: readonly Truth[], shown: Shown): Truth[] {
  return truths
    .map((t, i) => ({ t, i, n: needlesFound(t, shown) }))
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .map((x) => x.t);
}
