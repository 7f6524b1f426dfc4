// The seccomp filter bwrap installs in the sandbox (`--seccomp FD`): socket() is allowed for
// AF_INET, AF_INET6 and AF_NETLINK only, and every other family is refused. The namespaces
// decide what those three reach (with the network off, nothing but the sandbox's own loopback;
// netlink stays so that `ip`, glibc's getaddrinfo and if_nameindex can ask the sandbox's own
// network namespace about itself). The families refused, and why an allow-list:
//   AF_UNIX   reached by path, and paths the sandbox can see (the user's home, the cwd, an
//             abstract socket, which has no path at all) may hold a listener outside the sandbox:
//             ssh-agent, gpg-agent, D-Bus, docker.sock, a user service. A network namespace does
//             not stop unix sockets (abstract ones are scoped to it only when it is unshared);
//   AF_VSOCK  the host or hypervisor's services (WSL2, Firecracker, Kata, QEMU guest agents):
//             outside every network namespace, so "network off" would not stop it;
//   the rest  (AF_PACKET, AF_BLUETOOTH, AF_ALG, AF_TIPC, AF_XDP, AF_CAN, ...) reach hardware,
//             other machines or kernel code a build tool never needs; each one is also a kernel
//             module an unprivileged socket() call may load. An allow-list keeps a family added
//             by a future kernel refused too.
//
// socketpair() is allowed for AF_UNIX only: it makes two connected ends inside the calling
// process, with no name anyone else can reach, and shells, Python's subprocess, ninja, make's
// jobserver and many test runners need it. A descriptor can only be passed over an existing
// connection, and the sandbox cannot open one to the outside. (No other family implements
// socketpair except AF_TIPC, which is refused like its socket().)
//
// The program is classic BPF over struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}
// (little-endian on both supported architectures, so args[0]'s low word is at offset 16; the
// family is an int, and the kernel reads only that low word too).
//   x86_64  native calls, and x32 calls (nr | 0x40000000: the same socket numbers, so the bit is
//           masked off rather than the whole x32 ABI refused); i386 calls from a 32-bit binary:
//           socket (359) and socketpair (360) are checked like the native ones, and socketcall
//           (102), whose arguments sit in memory a filter cannot read, is refused outright
//           (glibc has used the direct calls since Linux 4.3, so only very old 32-bit binaries
//           notice).
//   aarch64 native calls, and arm32 compat calls (socket 281, socketpair 288; arm EABI has no
//           socketcall).
// Any other architecture kills the process: a filter that cannot read a call must not allow it.
// Refused sockets fail with EAFNOSUPPORT ("Address family not supported by protocol"), which
// programs already handle as "no such transport".
//
// io_uring is refused too (io_uring_setup, _enter, _register: 425-427 on every architecture):
// its IORING_OP_SOCKET and IORING_OP_CONNECT make and connect sockets without the socket and
// connect syscalls, so a filter on those calls alone would be a door left open. It fails with
// ENOSYS, as on a kernel built without it: libuv (Node), liburing users and tokio fall back to
// plain system calls. Docker's default profile refuses it for the same reason.

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const AUDIT_ARCH_ARM = 0x40000028;
const X32_SYSCALL_BIT = 0x40000000;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
/** the families socket() may make */
const SOCKET_FAMILIES = [AF_INET, AF_INET6, AF_NETLINK];
/** the families socketpair() may make */
const SOCKETPAIR_FAMILIES = [AF_UNIX];
// the same numbers on x86_64 and aarch64 (and their 32-bit compat ABIs)
const EAFNOSUPPORT = 97;
const ENOSYS = 38;
/** io_uring_setup, io_uring_enter, io_uring_register: one number on every architecture */
const IO_URING = [425, 426, 427];

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

// BPF opcodes
const LD_W_ABS = 0x20; // A = *(u32 *)(data + k)
const ALU_AND_K = 0x54; // A &= k
const JEQ_K = 0x15; // pc += (A == k) ? jt : jf
const RET_K = 0x06; // return k

const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LOW = 16;

interface ArchRules {
  arch: number;
  /** the socket and socketpair syscalls' numbers */
  socket: number;
  socketpair: number;
  /** syscalls refused with EAFNOSUPPORT whatever their arguments (i386 socketcall) */
  refuse?: number;
  /** bits cleared from nr before comparing (the x32 bit) */
  mask?: number;
}

const RULES: Partial<Record<NodeJS.Architecture, ArchRules[]>> = {
  x64: [
    { arch: AUDIT_ARCH_X86_64, socket: 41, socketpair: 53, mask: X32_SYSCALL_BIT },
    { arch: AUDIT_ARCH_I386, socket: 359, socketpair: 360, refuse: 102 },
  ],
  arm64: [
    { arch: AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199 },
    { arch: AUDIT_ARCH_ARM, socket: 281, socketpair: 288 },
  ],
};

/** One instruction; jumps name labels, resolved when the program is assembled. */
type Insn = { code: number; k: number; jt?: string; jf?: string } | { label: string };

function assemble(program: Insn[]): Buffer {
  const insns = program.filter((i): i is Exclude<Insn, { label: string }> => !("label" in i));
  const labels = new Map<string, number>();
  let pc = 0;
  for (const i of program) {
    if ("label" in i) labels.set(i.label, pc);
    else pc++;
  }
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, at) => {
    const rel = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = labels.get(label);
      if (target === undefined || target <= at || target - at - 1 > 255) throw new Error(`bad seccomp jump to ${label}`);
      return target - at - 1;
    };
    buf.writeUInt16LE(insn.code, at * 8);
    buf.writeUInt8(rel(insn.jt), at * 8 + 2);
    buf.writeUInt8(rel(insn.jf), at * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, at * 8 + 4);
  });
  return buf;
}

/**
 * The filter for this machine's architecture (process.arch), as the bytes of a struct
 * sock_filter array; undefined where pith knows no syscall numbers (then no filter is used,
 * and sandboxSummary says so).
 */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const rules = RULES[arch];
  if (!rules) return undefined;
  const p: Insn[] = [{ code: LD_W_ABS, k: OFF_ARCH }];
  rules.forEach((r, n) => p.push({ code: JEQ_K, k: r.arch, jt: `arch${n}`, jf: n + 1 < rules.length ? undefined : "kill" }));
  rules.forEach((r, n) => {
    p.push({ label: `arch${n}` }, { code: LD_W_ABS, k: OFF_NR });
    if (r.mask) p.push({ code: ALU_AND_K, k: ~r.mask >>> 0 });
    if (r.refuse !== undefined) p.push({ code: JEQ_K, k: r.refuse, jt: "refuse" });
    for (const nr of IO_URING) p.push({ code: JEQ_K, k: nr, jt: "nosys" });
    p.push({ code: JEQ_K, k: r.socket, jt: "socket" });
    p.push({ code: JEQ_K, k: r.socketpair, jt: "socketpair", jf: "allow" });
  });
  /** the family (args[0]) one of `families`, or refused */
  const familyIn = (label: string, families: number[]) => {
    p.push({ label }, { code: LD_W_ABS, k: OFF_ARG0_LOW });
    families.forEach((f, n) => p.push({ code: JEQ_K, k: f, jt: "allow", jf: n + 1 < families.length ? undefined : "refuse" }));
  };
  familyIn("socket", SOCKET_FAMILIES);
  familyIn("socketpair", SOCKETPAIR_FAMILIES);
  p.push(
    { label: "allow" },
    { code: RET_K, k: SECCOMP_RET_ALLOW },
    { label: "refuse" },
    { code: RET_K, k: SECCOMP_RET_ERRNO | EAFNOSUPPORT },
    { label: "nosys" },
    { code: RET_K, k: SECCOMP_RET_ERRNO | ENOSYS },
    { label: "kill" },
    { code: RET_K, k: SECCOMP_RET_KILL_PROCESS },
  );
  return assemble(p);
}
