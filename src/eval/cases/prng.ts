// A seeded pseudo-random source (mulberry32): the cases must come out byte for byte the same
// for a seed on every machine and Node version, so nothing here touches Math.random or the clock.
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** a float in [0, 1) */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** an integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  hex(length: number): string {
    let out = "";
    while (out.length < length) out += ((this.next() * 0x10000) >>> 0).toString(16).padStart(4, "0");
    return out.slice(0, length);
  }

  /** a uuid-shaped id (version 4 layout), for a session header */
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[this.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** an independent stream for one part of a case, so a change in one part leaves the others' draws alone */
  fork(salt: number): Prng {
    return new Prng((this.int(0, 0xffffffff) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0);
  }
}
