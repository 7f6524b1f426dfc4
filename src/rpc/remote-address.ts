// Which "remote address" a limit counts against (ws-pre-auth.ts, ws-auth-failures.ts).
//
// IPv4 as is (an IPv4-mapped IPv6 address, what a dual-stack listener reports, counts as the IPv4
// address). IPv6 by its /64 prefix: one host usually holds a whole /64 and can pick any address
// in it, so counting single IPv6 addresses would give it 2^64 fresh allowances.
import { isIPv6 } from "node:net";

/** The eight groups of an IPv6 address as numbers, or undefined when it is not one. */
function ipv6Groups(addr: string): number[] | undefined {
  const bare = addr.replace(/%.*$/, ""); // zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return undefined;
  const [head, tail] = bare.includes("::") ? bare.split("::") : [bare, undefined];
  const parse = (part: string): number[] => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (g.includes(".")) {
        // an embedded IPv4 address is the last two groups
        const [a, b, c, d] = g.split(".").map(Number);
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const h = parse(head);
  if (tail === undefined) return h;
  const t = parse(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** The key a remote address is counted under. */
export function addressKey(remoteAddress: string | undefined): string {
  const addr = remoteAddress ?? "";
  const g = ipv6Groups(addr);
  if (g === undefined) return addr;
  // ::ffff:a.b.c.d
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}
