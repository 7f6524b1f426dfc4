// Checking a request's params the way every pith server does, so the -32602 answer is the same
// everywhere: message = one line naming each problem and where; data = z.treeifyError's tree.
import { z } from "zod";
import { ErrorCodes, type ErrorTree } from "./errors.js";
import { methods, type MethodName, type ParsedParamsOf } from "./methods.js";

interface InvalidParamsError {
  code: typeof ErrorCodes.InvalidParams;
  message: string;
  data: ErrorTree;
}

export type ParamsCheck<M extends MethodName> = { ok: true; params: ParsedParamsOf<M> } | { ok: false; error: InvalidParamsError };

/** `images[0].data`, or "" for the params object itself. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describe(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string {
  const path = [...prefix, ...issue.path];
  const where = formatIssuePath(path);
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors.map((branch) => branch.map((i) => describe(i, path)).join(", "));
    return `${where ? `${where}: ` : ""}${issue.message} (${branches.join(" | ")})`;
  }
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** The -32602 error for a params ZodError. */
function invalidParams(method: string, error: z.ZodError): InvalidParamsError {
  return {
    code: ErrorCodes.InvalidParams,
    message: `invalid params for ${method}: ${error.issues.map((i) => describe(i, [])).join("; ")}`,
    data: z.treeifyError(error) as ErrorTree,
  };
}

/**
 * Validates a method's params. Absent params are {}; params must be an object (by name).
 * Unknown method names are the caller's to answer (-32601) before calling this.
 */
export function parseParams<M extends MethodName>(method: M, raw: unknown): ParamsCheck<M> {
  const schema = methods[method].params as z.ZodType;
  const parsed = schema.safeParse(raw === undefined ? {} : raw);
  if (parsed.success) return { ok: true, params: parsed.data as ParsedParamsOf<M> };
  return { ok: false, error: invalidParams(method, parsed.error) };
}
