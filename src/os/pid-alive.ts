// Whether a process of this host still runs: the session lock, the sandbox's cgroups and the
// sessions' temp dirs are all named after the daemon that made them, and taken over or swept once
// it is gone. EPERM means it runs as another user: alive all the same.

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
