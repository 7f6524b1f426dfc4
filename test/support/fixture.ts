// The real Pi session lives in ../shared/fixtures (beside the clone in CI). It is never copied
// into the repository; tests copy it to a temp dir and skip, saying why, where it is absent.
import { copyFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { repoRoot } from "./tmp.js";

export const PI_FIXTURE = resolve(repoRoot, "..", "shared", "fixtures", "pi-large-session-v1.jsonl");

/** The skip reason when the fixture is missing, or false (for `test(name, { skip }, fn)`). */
export const fixtureSkip: string | false = existsSync(PI_FIXTURE)
  ? false
  : `Pi fixture not found at ${PI_FIXTURE} (it lives in ../shared beside the clone); skipping`;

export function copyFixture(dir: string, name = "pi-session.jsonl"): string {
  const target = join(dir, name);
  copyFileSync(PI_FIXTURE, target);
  return target;
}
