// Whether a process still runs, as a test that something was stopped must ask it: a killed
// process whose parent died is a zombie until init reaps it (which in a container may be never);
// it answers signal 0 but runs nothing.
import { pidAlive } from "../../src/os/pid-alive.js";
import { processStat } from "../../src/tools/process-group.js";

export function running(pid: number): boolean {
  return pidAlive(pid) && processStat(pid)?.state !== "Z";
}
