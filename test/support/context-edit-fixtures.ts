// The context_edit fixtures (test/fixtures/context-edit): small sessions Pi 1.5.2 edited, each
// beside what Pi 1.5.2 makes of it (<name>.pi.json, written by the Pi latest oracle). Tests copy
// a fixture before opening it, so a test that writes never changes the checked-in file.
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentMessage } from "../../src/messages/types.js";
import { repoRoot } from "./tmp.js";

export const CONTEXT_EDIT_DIR = join(repoRoot, "test", "fixtures", "context-edit");

/** What the oracle printed for a fixture: Pi 1.5.2's context of it. */
export interface PiView {
  piVersion: string;
  entries: number;
  leafId: string | null;
  contextMessages: number;
  roleSequence: string;
  model: { provider: string; modelId: string } | null;
  thinkingLevel: string;
  messages: AgentMessage[];
}

export const CONTEXT_EDIT_FIXTURES: string[] = readdirSync(CONTEXT_EDIT_DIR)
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => f.slice(0, -".jsonl".length))
  .sort();

export function piView(name: string): PiView {
  return JSON.parse(readFileSync(join(CONTEXT_EDIT_DIR, `${name}.pi.json`), "utf8")) as PiView;
}

export function copyContextEditFixture(name: string, dir: string): string {
  const target = join(dir, `${name}.jsonl`);
  copyFileSync(join(CONTEXT_EDIT_DIR, `${name}.jsonl`), target);
  return target;
}

/** Messages as a file states them (Pi keeps undefined fields that JSON drops). */
export function asStored(messages: readonly unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(messages)) as unknown[];
}

/** The Pi latest oracle (in ../shared/tools beside the clone, or /work/shared/tools), if present. */
export const PI_LATEST_ORACLE: string | undefined = [resolve(repoRoot, "..", "shared", "tools", "pi-latest-oracle.mjs"), "/work/shared/tools/pi-latest-oracle.mjs"].find((p) => existsSync(p));
