// A session's own settings, kept in the session file (a bookkeeping entry, read from any branch):
// automatic compaction on or off, and the context windows learned from the endpoint's overflow
// errors (per model id), so a reopened session keeps what it learned.
import type { SessionFile } from "../session/session-file.js";
import { SESSION_SETTINGS_TYPE } from "../session/types.js";

export interface StoredSessionSettings {
  autoCompaction?: boolean;
  /** model id -> the window its endpoint enforces, when smaller than the model table says */
  learnedWindows?: Record<string, number>;
}

export class SessionSettings {
  private value: StoredSessionSettings;

  constructor(private readonly file: SessionFile) {
    const stored = file.latestBookkeeping(SESSION_SETTINGS_TYPE);
    this.value = stored && typeof stored === "object" ? { ...(stored as StoredSessionSettings) } : {};
  }

  get autoCompaction(): boolean | undefined {
    return typeof this.value.autoCompaction === "boolean" ? this.value.autoCompaction : undefined;
  }

  learnedWindow(modelId: string): number | undefined {
    const w = this.value.learnedWindows?.[modelId];
    return typeof w === "number" && w > 0 ? w : undefined;
  }

  /** Records a change; each record holds the whole settings, synced (an acknowledged change is durable). */
  update(patch: StoredSessionSettings): void {
    this.value = { ...this.value, ...patch, learnedWindows: { ...this.value.learnedWindows, ...patch.learnedWindows } };
    if (Object.keys(this.value.learnedWindows ?? {}).length === 0) delete this.value.learnedWindows;
    this.file.appendBookkeeping(SESSION_SETTINGS_TYPE, this.value, { sync: true });
  }
}
