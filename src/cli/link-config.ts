// How this node's links to the other nodes are protected (src/rpc/link-security.ts), from
// --tls-ca FILE (or PITH_TLS_CA) and --trusted-network. The CA file is read once at start, so a
// missing or unreadable one is a usage error now rather than a failed relay later. Given with the
// file store the flags are a usage error; the variable is then ignored, as the store's are.
import { readFileSync } from "node:fs";
import type { LinkSecurity } from "../rpc/link-security.js";
import type { StoreConfig } from "./store-config.js";

export function linkSecurityFrom(get: (flag: string) => string | undefined, has: (flag: string) => boolean, env: NodeJS.ProcessEnv, store: StoreConfig): LinkSecurity | string {
  const caFlag = get("--tls-ca");
  const trusted = has("--trusted-network");
  if (store.kind !== "postgres") {
    if (caFlag !== undefined) return "--tls-ca needs a PostgreSQL store (--store postgres://... or PITH_STORE)";
    if (trusted) return "--trusted-network needs a PostgreSQL store (--store postgres://... or PITH_STORE)";
    return {};
  }
  const security: LinkSecurity = trusted ? { trustedNetwork: true } : {};
  const caFile = caFlag ?? (env.PITH_TLS_CA || undefined);
  if (caFile === undefined) return security;
  const source = caFlag !== undefined ? "--tls-ca" : "PITH_TLS_CA";
  let pem: string;
  try {
    pem = readFileSync(caFile, "utf8");
  } catch (err) {
    return `cannot read ${source} ${caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) return `bad ${source} ${caFile}: not a PEM certificate file`;
  return { ...security, ca: pem };
}
