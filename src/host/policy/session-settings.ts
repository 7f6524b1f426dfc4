// A session's own settings, kept in the session file (a bookkeeping entry, read from any branch):
// automatic compaction on or off and its threshold, the permission mode last set on the session, and the context
// windows learned from the endpoint's overflow errors (per model id), so a reopened session keeps
// what it learned and what the user chose.
import type { SessionFile } from "../../session/session-file.js";
import { SESSION_SETTINGS_TYPE } from "../../session/types.js";
import type { PermissionMode } from "../ports.js";

export interface StoredSessionSettings {
  autoCompaction?: boolean;
  /** the session's own compaction threshold (a fraction of the window up to 1, else tokens); null: the settings' */
  compactionThreshold?: number | null;
  /** model id -> the window its endpoint enforces, when smaller than the model table says */
  learnedWindows?: Record<string, number>;
  /** the mode last set (setPermissionMode, ACP session/set_mode) */
  permissionMode?: PermissionMode;
}

/** How much each mode lets tools do without asking: a stored mode never widens the configured one. */
const WIDTH: Record<PermissionMode, number> = { readonly: 0, ask: 1, auto: 2 };

export class SessionSettings {
  private value: StoredSessionSettings;
  private mode: PermissionMode;

  /** configuredMode: the mode the user's settings start sessions in ("auto" when unset) */
  constructor(
    private readonly file: SessionFile,
    configuredMode: PermissionMode = "auto",
  ) {
    const stored = file.latestBookkeeping(SESSION_SETTINGS_TYPE);
    this.value = stored && typeof stored === "object" ? { ...(stored as StoredSessionSettings) } : {};
    const kept = this.value.permissionMode;
    // the stored mode is restored, but a session file cannot widen what the user's settings allow
    this.mode = kept !== undefined && Object.hasOwn(WIDTH, kept) && WIDTH[kept] <= WIDTH[configuredMode] ? kept : configuredMode;
  }

  get autoCompaction(): boolean | undefined {
    return typeof this.value.autoCompaction === "boolean" ? this.value.autoCompaction : undefined;
  }

  /** The session's own threshold, if one was set (a value a hand edit spoilt is ignored). */
  get compactionThreshold(): number | undefined {
    const t = this.value.compactionThreshold;
    return typeof t === "number" && Number.isFinite(t) && t > 0 ? t : undefined;
  }

  get permissionMode(): PermissionMode {
    return this.mode;
  }

  /** Sets the mode for this process and records it (synced) for the next open. */
  set permissionMode(mode: PermissionMode) {
    this.mode = mode;
    if (this.value.permissionMode !== mode) this.update({ permissionMode: mode });
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
