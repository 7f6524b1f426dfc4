// Writing a brand-new file durably: created exclusively (never over an existing session), its
// content synced, then its folder. A new session's header and a fork's copy are written so.
import { closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE, fsyncDir, writeAll } from "./atomic-write.js";

export function writeNewFile(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  const fd = openSync(file, "wx", PRIVATE_FILE);
  try {
    writeAll(fd, Buffer.from(content));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dirname(file));
}

/** writeNewFile for a big file (a fork of a long branch): written a megabyte at a time and synced off the event loop. */
export async function writeNewFileAsync(file: string, lines: readonly string[]): Promise<void> {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  const handle = await fsp.open(file, "wx", PRIVATE_FILE);
  try {
    let batch: string[] = [];
    let size = 0;
    for (const line of lines) {
      batch.push(line);
      size += line.length + 1;
      if (size >= 1 << 20) {
        await handle.write(batch.join("\n") + "\n");
        batch = [];
        size = 0;
      }
    }
    if (batch.length > 0) await handle.write(batch.join("\n") + "\n");
    await handle.sync();
  } finally {
    await handle.close();
  }
  fsyncDir(dirname(file));
}
