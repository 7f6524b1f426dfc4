// The artifact trail as the design defines it, built from the operations in session order: a file
// created then changed stays created, created then deleted is deleted only, read then changed is
// modified only.
import type { Truth } from "../truth.js";

type Status = "read" | "modified" | "created" | "deleted";

export class ArtifactTrail {
  private readonly status = new Map<string, Status>();

  read(path: string): void {
    if (!this.status.has(path)) this.status.set(path, "read");
  }

  /** a write: creates the file unless the session has seen it (then it changes it) */
  write(path: string): void {
    const s = this.status.get(path);
    this.status.set(path, s === undefined || s === "created" || s === "deleted" ? "created" : "modified");
  }

  edit(path: string): void {
    const s = this.status.get(path);
    if (s !== "created") this.status.set(path, "modified");
  }

  delete(path: string): void {
    this.status.set(path, "deleted");
  }

  /** has the session already read, written or edited it */
  has(path: string): boolean {
    return this.status.has(path);
  }

  truth(): Truth["artifacts"] {
    const of = (s: Status) => [...this.status].filter(([, v]) => v === s).map(([k]) => k).sort();
    return { read: of("read"), modified: of("modified"), created: of("created"), deleted: of("deleted") };
  }
}
