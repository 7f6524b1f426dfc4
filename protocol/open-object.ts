// Object schemas for stored data: pith keeps keys it does not know (a file from an older or newer
// writer must come back out unchanged), yet the TypeScript type names only the known fields.
// zod's looseObject types unknown keys as `[key: string]: unknown`, which lets a misspelt field
// read as `unknown` instead of failing to compile and makes `Omit`/`Pick` drop every known field;
// domain code (src/) uses these types directly, so they must be the precise ones.
import { z } from "zod";

/** z.looseObject at runtime (unknown keys kept, JSON Schema unchanged), typed as its known fields. */
export function openObject<T extends z.core.$ZodLooseShape>(shape: T): ReturnType<typeof z.object<T>> {
  return z.looseObject(shape) as unknown as ReturnType<typeof z.object<T>>;
}
