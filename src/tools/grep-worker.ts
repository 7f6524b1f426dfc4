// The worker thread grep's JavaScript engine runs in (see grep-js.ts): one search per worker.
import { parentPort, workerData } from "node:worker_threads";
import { InvalidPatternError, searchJs, type GrepRequest } from "./grep-js.js";

searchJs(workerData as GrepRequest).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (err: unknown) => parentPort!.postMessage({ ok: false, invalidPattern: err instanceof InvalidPatternError, message: (err as Error)?.message ?? String(err) }),
);
