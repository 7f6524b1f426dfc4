// Text bound for a terminal, with everything a terminal would obey instead of show made visible.
// The model's replies, its tools' arguments and output, a session file's previews and ids, a
// discovery server's model names: any of them can hold an escape sequence, and a terminal runs
// what it is sent: OSC 52 writes the clipboard (paste-jacking), OSC 0 sets the window title, CSI
// 2J clears the screen over what ran, a lone carriage return writes a line over the one before,
// and a bidi override shows a command in another order than it runs. So every byte pith writes
// for a person goes through one of these two functions first:
//
// - terminalSafe (text for a person): C0 controls but \n and \t, a CR not followed by \n, DEL, C1
//   controls (U+0080-U+009F: the 8-bit CSI 0x9B and OSC 0x9D among them) and ESC become `\xHH`;
//   the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) become `\uHHHH`.
//   Nothing is dropped: a person sees that something was there, and what.
// - terminalSafeJson (a JSON text): the same JSON value, byte for byte what a parser reads, with
//   the characters JSON.stringify leaves raw (DEL, C1, bidi) written as \u escapes; JSON already
//   escapes every C0 control, ESC included. Those characters can only occur inside JSON strings,
//   so the replacement never touches the structure.
//
// Always, not only on a TTY: `pith -p … | less -R`, `pith tree > f; cat f` and a log collector's
// viewer are terminals too, and a reply that needs exact bytes has `--mode json`.

const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
const UNSAFE_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, "0");
const visible = (c: string) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);
const jsonEscape = (c: string) => `\\u${hex(c, 4)}`;

/** `text` with every control a terminal would act on written out visibly (`\x1b`, `\u202e`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** A JSON text with DEL, C1 and bidi controls as \u escapes: the same value, nothing a terminal acts on. */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, jsonEscape);
}
