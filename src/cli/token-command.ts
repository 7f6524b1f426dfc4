// `pith token [--rotate]`: where the client token `pith serve` uses by default is kept
// ($PITH_HOME/token), made now if there is none; --rotate replaces it with a new one. The path is
// printed, not the token, so the command's output can sit in a terminal's scrollback or a CI log
// (`cat "$(pith token)"` when the token itself is wanted). A running daemon keeps the token it
// started with: restart it after a rotation.
import { pithHome } from "../session/paths.js";
import { BadTokenFile, ensureTokenFile, rotateTokenFile } from "./token-file.js";
import { printErr, printOut } from "./terminal-out.js";

export function runTokenCommand(o: { rotate: boolean }): number {
  try {
    const file = o.rotate ? rotateTokenFile(pithHome()) : ensureTokenFile(pithHome());
    printOut(`${file.path}\n`);
    if (o.rotate) printErr("a new token is in place: restart running daemons (`pith serve`) and give clients the new token\n");
    else if (file.created) printErr("made a new token\n");
    return 0;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    printErr(`pith: ${err instanceof BadTokenFile ? err.message : `${e.code ?? ""} ${e.message}`}\n`);
    return 1;
  }
}
