// Client read bench (`npm run bench -- client`): how long the typed client's stdio transport
// takes to receive one big answer (a getTree or getMessages of a large session is a single line
// of tens of MB) beside a baseline in the same run, collecting the same bytes from the same pipe
// with no line cutting at all. Two shapes of text: ASCII, and two-byte characters that chunk
// boundaries cut in half. The ratio should stay near 1 whatever the size; it was quadratic.
import { spawn } from "node:child_process";
import { StdioTransport } from "../clients/ts/node.js";

type Shape = "ascii" | "two-byte";

function writer(mb: number, shape: Shape): string {
  const unit = shape === "ascii" ? "a" : "é";
  const count = shape === "ascii" ? mb * 1e6 : (mb * 1e6) / 2;
  return `const line = JSON.stringify({ jsonrpc: "2.0", method: "big", params: { text: ${JSON.stringify(unit)}.repeat(${count}) } }) + "\\n";
process.stdout.write(line);`;
}

async function viaTransport(mb: number, shape: Shape): Promise<number> {
  const child = spawn(process.execPath, ["-e", writer(mb, shape)], { stdio: "pipe" });
  const t0 = performance.now();
  const t = new StdioTransport(child);
  let bytes = 0;
  t.onMessage((text) => (bytes += text.length));
  await new Promise<void>((resolve) => t.onClose(() => resolve()));
  if (bytes === 0) throw new Error("nothing received");
  return performance.now() - t0;
}

async function baseline(mb: number, shape: Shape): Promise<number> {
  const child = spawn(process.execPath, ["-e", writer(mb, shape)], { stdio: "pipe" });
  const t0 = performance.now();
  const chunks: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  await new Promise<void>((resolve) => child.stdout.on("end", () => resolve()));
  if (Buffer.concat(chunks).toString("utf8").length === 0) throw new Error("nothing received");
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

export async function runClientReadBench(sizesMb = [5, 20, 50], runs = Number(process.env.BENCH_RUNS ?? 3)) {
  const figures: { mb: number; shape: Shape; clientMs: number; baselineMs: number; ratio: number }[] = [];
  for (const mb of sizesMb) {
    for (const shape of ["ascii", "two-byte"] as Shape[]) {
      const client: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < runs; i++) {
        base.push(await baseline(mb, shape));
        client.push(await viaTransport(mb, shape));
      }
      const clientMs = round(median(client));
      const baselineMs = round(median(base));
      figures.push({ mb, shape, clientMs, baselineMs, ratio: round(clientMs / baselineMs, 2) });
      console.log(`${mb} MB line, ${shape}: client ${clientMs} ms, baseline ${baselineMs} ms, ${round(clientMs / baselineMs, 2)}x`);
    }
  }
  console.log(JSON.stringify({ bench: "client-read", figures }));
  return figures;
}
