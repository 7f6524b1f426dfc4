// Killing everything a command started. bash runs as the leader of its own process group
// (spawned with `detached: true`), so signalling the group reaches pipelines, subshells and
// background jobs too — killing only the shell would leave them running as orphans.
// (A process that moves itself into a new session or group, e.g. via setsid, escapes this.)
import { readFileSync, readdirSync } from "node:fs";

const POLL_MS = 25;

/** SIGTERM the group; SIGKILL whatever is still alive after `graceMs`. Resolves when the group is gone (or given up on). */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  if (await waitGone(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  // SIGKILL cannot be ignored; the wait only covers the kernel tearing the processes down
  await waitGone(pgid, 1000);
}

/** Sends `signal` to every process in the group (0: none, only checks); false if the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count: an orphan that died is
 * reparented to PID 1, and if that is not a real init (as in many containers) it is never reaped —
 * it stays signal-able yet is no longer running anything.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  const members = groupMembersFromProc(pgid);
  if (members === undefined) return true; // no /proc (not Linux): trust kill(0)
  return members.some((m) => m.state !== "Z" && m.state !== "X");
}

/** Processes of the group and their states from /proc, or undefined when /proc is unavailable. */
function groupMembersFromProc(pgid: number): { pid: number; state: string }[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const members: { pid: number; state: string }[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const info = processStat(Number(name));
    if (info && info.pgrp === pgid) members.push({ pid: Number(name), state: info.state });
  }
  return members;
}

/** State letter and process group of a process from /proc/<pid>/stat, if readable. */
export function processStat(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ..." — comm may hold spaces and parentheses, so split after the last ")"
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]) };
}

async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
