// grep's JavaScript engine: the files under the search root (or the one file), line by line,
// against a JavaScript regular expression. It runs in a worker thread (grep-worker.ts), because a
// model's pattern can backtrack for as long as it likes: the worker can be stopped, the event
// loop cannot. Every file is opened without following a link and checked by descriptor against
// the session's rules before a line of it is read (confined-fs.ts).
import { openExisting } from "./confined-fs.js";
import { globMatcher, type PathMatcher } from "./glob.js";
import { GrepCollector, type GrepCollected } from "./grep-output.js";
import { scanLines } from "./lines.js";
import { policyRoots, type PathPolicy } from "./paths.js";
import { walkFiles } from "./walk.js";

export interface GrepRequest {
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  /** absolute path of the file or directory searched */
  root: string;
  isDirectory: boolean;
  /** how the file is named in the output when root is a file */
  label: string;
  glob?: string;
  context: number;
  limit: number;
  /** directories under root (relative, "/"-separated) never entered: pith's own folder */
  skip: string[];
  /** the session's rules, every file opened is checked against (plain data: it crosses to the worker) */
  policy: PathPolicy;
}

export class InvalidPatternError extends Error {}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export async function searchJs(req: GrepRequest): Promise<GrepCollected> {
  let regex: RegExp;
  try {
    regex = new RegExp(req.literal ? escapeRegExp(req.pattern) : req.pattern, req.ignoreCase ? "i" : "");
  } catch (err) {
    throw new InvalidPatternError((err as Error).message);
  }
  const matcher: PathMatcher | undefined = req.glob !== undefined ? globMatcher(req.glob) : undefined;
  const out = new GrepCollector(req.limit);

  const roots = await policyRoots(req.policy);
  const searchFile = async (path: string, label: string, noFollow: boolean) => {
    let before: { n: number; text: string }[] = [];
    let afterLeft = 0;
    const file = await openExisting(path, { ctx: req.policy, shown: label, roots }, "read", { noFollow });
    if (!file.stats.isFile()) {
      await file.handle.close();
      return;
    }
    await scanLines(file.handle, (line, n) => {
      if (regex.test(line)) {
        if (out.matches >= req.limit) {
          out.stop("limit");
          return "stop";
        }
        for (const b of before) if (!out.context(label, b.n, b.text)) return "stop";
        before = [];
        if (!out.match(label, n, line)) return "stop";
        afterLeft = req.context;
      } else if (afterLeft > 0) {
        if (!out.context(label, n, line)) return "stop";
        afterLeft--;
      } else if (req.context > 0) {
        before.push({ n, text: line });
        if (before.length > req.context) before.shift();
      }
      // the last allowed match is in and its trailing context shown: nothing more to collect
      if (out.matches >= req.limit && afterLeft === 0) {
        out.stop("limit");
        return "stop";
      }
    })
      .catch((err) => {
        // a file that vanished or is unreadable mid-walk is skipped, as grep -s would
        if (!(err as NodeJS.ErrnoException).code) throw err;
      })
      .finally(() => file.handle.close());
  };

  if (!req.isDirectory) await searchFile(req.root, req.label, false);
  else {
    for await (const entry of walkFiles(req.root, { skip: new Set(req.skip), policy: req.policy, shown: req.label })) {
      if (entry.kind !== "file") continue;
      if (matcher && !matcher(entry.rel)) continue;
      // one swapped for a link since the walk listed it, or refused by the rules: skipped
      await searchFile(entry.path, entry.rel, true).catch(() => {});
      if (out.stoppedAt) break;
    }
  }
  return out.collected();
}
