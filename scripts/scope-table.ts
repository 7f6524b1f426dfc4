// PROTOCOL.md's scope table, generated from protocol/methods.ts: one row per scope (its
// description in METHOD_SCOPES, then the methods whose row has it, in table order), written
// between the two markers below. scripts/gen-schema.ts writes it with schema.json and checks it
// with --check, so the document cannot drift from what the dispatcher does.
import * as P from "../protocol/index.js";

export const BEGIN = "<!-- scope table: generated from protocol/methods.ts by `npm run schema`; do not edit -->";
export const END = "<!-- end of scope table -->";

/** Rows in this order (the document's). */
const ORDER: readonly P.MethodScope[] = ["read", "session", "exclusive", "global"];

export function renderScopeTable(): string {
  const rows = ORDER.map((scope) => {
    const names = P.METHOD_NAMES.filter((m) => P.methods[m].scope === scope).map((m) => `\`${m}\``);
    return `| ${scope} | ${P.METHOD_SCOPES[scope]} | ${names.join(", ")} |`;
  });
  return ["| scope | | methods |", "|---|---|---|", ...rows].join("\n");
}

/** The document with its scope table replaced by the generated one; throws without the markers. */
export function withScopeTable(doc: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END, begin);
  if (begin < 0 || end < 0) throw new Error(`PROTOCOL.md has no scope table markers (${BEGIN} ... ${END})`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${renderScopeTable()}\n${doc.slice(end)}`;
}
