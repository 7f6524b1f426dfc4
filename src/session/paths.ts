// Where sessions live on disk. The layout is Pi's, so a sessions directory can be shared.
import { homedir } from "node:os";
import { join } from "node:path";

export function pithHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.PITH_HOME && env.PITH_HOME.length > 0 ? env.PITH_HOME : join(homedir(), ".pith");
}

export function defaultSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(pithHome(env), "sessions");
}

/** `/home/me/app` -> `--home-me-app--` (one directory per working directory). */
export function encodeCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<ISO timestamp with : and . replaced by ->_<uuid>.jsonl` */
export function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

export function sessionFilePath(sessionsDir: string, cwd: string, timestamp: string, sessionId: string): string {
  return join(sessionsDir, encodeCwd(cwd), sessionFileName(timestamp, sessionId));
}
