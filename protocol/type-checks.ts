// Compile-time checks that a domain type and its wire schema describe the same thing. The host
// keeps its own types where they read better than zod's output (named, without the index
// signatures of loose objects), and states here that they agree: a field added, dropped or
// retyped on one side only stops `npm run typecheck`. Types only: nothing here exists at runtime.

/** T without index signatures (`[key: string]: unknown` of a loose object), at every depth. */
export type Known<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer U)[]
    ? Known<U>[]
    : T extends object
      ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Known<T[K]> }
      : T;

/** Exactly the same type (optional keys, readonly-ness and all), not merely assignable both ways. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The same known fields with the same types, ignoring the index signatures loose objects add. */
export type SameShape<A, B> = Same<Known<A>, Known<B>>;

/** Fails to compile unless T is true: `type _ = Assert<SameShape<Mine, Wire>>`. */
export type Assert<T extends true> = T;
