// `pith serve --tls-cert FILE --tls-key FILE`: the certificate chain and private key (PEM) the
// daemon serves https:// and wss:// with. Read and checked once at start, each file on its own
// and then the pair, so a mistake is a startup error that names the file at fault instead of a
// TLS failure at the first client.
import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

function read(flag: string, path: string): Buffer | string {
  try {
    return readFileSync(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return `cannot read ${flag} ${path}: ${e.code ?? ""} ${e.message}`.replace(/\s+/g, " ");
  }
}

/** The PEM contents, or a one-line reason naming the file (the caller exits 1 with it). */
export function loadTlsFiles(certPath: string, keyPath: string): TlsFiles | string {
  const cert = read("--tls-cert", certPath);
  if (typeof cert === "string") return cert;
  const key = read("--tls-key", keyPath);
  if (typeof key === "string") return key;
  const tries: Array<[string, () => void]> = [
    [`--tls-cert ${certPath} is not a PEM certificate`, () => createSecureContext({ cert })],
    [`--tls-key ${keyPath} is not a PEM private key (or it is encrypted)`, () => createSecureContext({ key })],
    [`--tls-cert ${certPath} and --tls-key ${keyPath} do not belong together`, () => createSecureContext({ cert, key })],
  ];
  for (const [what, attempt] of tries) {
    try {
      attempt();
    } catch (err) {
      return `${what}: ${(err as Error).message}`;
    }
  }
  return { cert, key };
}
