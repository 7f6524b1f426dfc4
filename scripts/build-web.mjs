#!/usr/bin/env node
// Builds the web UI (clients/web) into clients/web/dist: index.html, app.js (one ES module:
// the UI plus clients/ts), app.css. `pith serve` serves that directory at /. Nothing is fetched
// from elsewhere at run time. Usage: node scripts/build-web.mjs [--dev] (--dev: no minifying,
// inline source map).
import { copyFileSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const web = join(root, "clients", "web");
const out = join(web, "dist");
const dev = process.argv.includes("--dev");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: join(web, "src", "main.ts"), "app-style": join(web, "src", "app.css") },
  outdir: out,
  entryNames: "[name]",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome110", "firefox110", "safari16"],
  minify: !dev,
  sourcemap: dev ? "inline" : false,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});

// app-style.css → app.css (esbuild names outputs after entry points, and "app" is taken by the JS)
renameSync(join(out, "app-style.css"), join(out, "app.css"));
copyFileSync(join(web, "index.html"), join(out, "index.html"));

// the browser bundle must not pull in zod (or anything else from node_modules but json-rpc-2.0, the
// base of the one JSON-RPC peer): clients/ts imports only types from protocol/, plus
// protocol/version.ts, connection-core.ts, jsonrpc-peer.ts and error-codes.ts
const ALLOWED_MODULES = /node_modules\/json-rpc-2\.0\//;
const fromModules = Object.keys(result.metafile.inputs).filter((p) => p.includes("node_modules") && !ALLOWED_MODULES.test(p));
if (fromModules.length > 0) {
  console.error(`build-web: the bundle includes node_modules code:\n  ${fromModules.join("\n  ")}`);
  process.exit(1);
}
for (const [file, info] of Object.entries(result.metafile.outputs)) {
  const name = relative(root, file).replace("app-style.css", "app.css");
  console.log(`build-web: ${name} ${(info.bytes / 1024).toFixed(1)} KiB`);
}
