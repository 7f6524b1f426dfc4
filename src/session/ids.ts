import { randomBytes } from "node:crypto";

/** A fresh 8-hex-char entry id not in `taken`. Pi does the same; it falls back to a UUID after collisions. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}
