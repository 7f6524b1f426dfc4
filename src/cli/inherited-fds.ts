// Descriptors pith's own parent left open without close-on-exec are closed when pith starts, so
// that none of them reaches a process pith starts: the model's commands (sandboxed or not), the
// user's own `bash`, ripgrep, slirp4netns, the reaper. Such a descriptor could be anything the
// parent holds (a unix socket to one of its services, a file it opened for writing) and passes
// straight through bubblewrap; the seccomp filter only refuses making sockets, not using one
// already open.
//
// Node marks descriptors close-on-exec at start (libuv's uv_disable_stdio_inheritance), but
// stops at the first number past 15 that is not open: 3-19 inherited as a block are covered, an
// inherited 25 is not. Node has no fcntl to set the flag, so the descriptor is closed instead:
// pith never uses one it did not open (it reads stdin and writes stdout and stderr only). Every
// descriptor Node, libuv and pith open themselves is close-on-exec already, so "open without
// the flag" is exactly "inherited and left to leak"; Node's own IPC channel (NODE_CHANNEL_FD,
// when a Node parent forked pith) is kept all the same. The child processes then get only what
// their spawn hands them: stdin, stdout, stderr, and the sandbox's handshake descriptors, which
// bwrap closes before the command runs.
import { closeSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC in fdinfo's octal flags (the same on x86_64 and aarch64, the generic value). */
const O_CLOEXEC = 0o2000000;

/** Closes every descriptor above 2 that is open without close-on-exec; returns their numbers (Linux; elsewhere none). */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return []; // not Linux, or no /proc: nothing to go by
  }
  const channel = env.NODE_CHANNEL_FD === undefined ? undefined : Number(env.NODE_CHANNEL_FD);
  const closed: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || fd === channel) continue;
    if (closeOnExec(fd) !== false) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // closed meanwhile
    }
  }
  return closed;
}

/** Whether `fd` is close-on-exec, from /proc/self/fdinfo; undefined when it is not open (the directory listing's own). */
function closeOnExec(fd: number): boolean | undefined {
  let info: string;
  try {
    info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
  } catch {
    return undefined;
  }
  const flags = /^flags:\s*([0-7]+)/m.exec(info);
  return flags ? (parseInt(flags[1], 8) & O_CLOEXEC) !== 0 : undefined;
}
