// CPU time a child process has used so far (user + system, from /proc/<pid>/stat), for figures
// that should not depend on how busy the rest of the machine is: what one more streamed chunk
// costs the daemon. Linux only; elsewhere it reads NaN. The kernel counts in clock ticks (10 ms
// at the usual 100 Hz), so a figure is a sum over many turns, not one turn's reading.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name is in parentheses and may hold spaces: count fields after its closing one
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / clockTicks();
  } catch {
    return NaN;
  }
}
