// The cases' scenarios, part three: a Rust CLI, a React app, a Python web app, a Go operator and a
// TypeScript build tool, each with its own planted tokens.
import type { Scenario } from "./scenario.js";

export const logtailCli: Scenario = {
  name: "rust-logtail-cli",
  project: "logtail",
  description: "A Rust CLI that follows and filters structured logs: a follow mode, a JSON filter language, colour output.",
  lang: "rs",
  shape: "long",
  thinking: false,
  target: 130_000,
  vocab: { nouns: ["record", "field", "filter", "source", "span"], verbs: ["parse", "match", "render", "collect", "scan", "split"] },
  flavor: "tool",
  files: ["src/filter/parse.rs", "src/filter/eval.rs", "src/follow.rs", "src/render.rs", "src/main.rs"],
  testFiles: ["filter::parse", "filter::eval", "follow", "render"],
  test: "cargo test",
  newFiles: ["src/filter/lexer.rs", "src/color.rs"],
  steps: ["follow mode that survives log rotation", "a field filter expression parser", "coloured output that respects NO_COLOR", "shell completions generated at build time", "a man page"],
  nextKeywords: ["shell completions"],
  laterKeywords: ["man page"],
  opening:
    "logtail today, in this order:\n1. follow mode that survives log rotation\n2. a field filter expression parser\n3. coloured output that respects NO_COLOR\n4. shell completions generated at build time\n5. a man page\n\nMSRV stays at Rust 1.74, and the binary must stay under 4 MB stripped. We tried the notify crate for file watching before and it missed rotations on NFS, so not that. Start on 1.",
  facts: [
    { id: "constraint-size", kind: "constraint", question: "What size limit did the user set for the release binary?", answer: "4 MB", beat: { via: "opening" } },
    { id: "rejected-notify", kind: "rejected", question: "Which file-watching crate was tried before and dropped?", answer: "notify", beat: { via: "opening" } },
    {
      id: "poll-ms", kind: "value", question: "What poll interval in milliseconds does the follow mode default to?", answer: "1730",
      beat: { via: "read", path: "logtail.toml", note: "The default settings file first.", content: '# defaults; every key can be overridden on the command line\n[follow]\npoll_interval_ms = 1730\nreopen_on_truncate = true\n\n[render]\ntimestamp = "rfc3339"\nmax_field_width = 48' },
    },
    {
      id: "rotate-error", kind: "error", question: "What did the first rotation test fail with?", answer: "stale inode 393218",
      beat: { via: "fail", command: "cargo test follow", failure: { test: "follow::tests::survives_rename_rotation", file: "src/follow.rs:212:9", message: "assertion failed: reader reopened the file: stale inode 393218 after rename" }, quote: "The reader keeps a stale inode 393218 after rename: it compares the path's metadata with its own handle's only on EOF with zero bytes. Checking the inode on every poll instead.", fix: { path: "src/follow.rs", oldText: "if n == 0 && self.rotated()? {", newText: "if self.rotated()? {" } },
    },
    {
      id: "fn-name", kind: "name", question: "What is the function that detects a rotated file called?", answer: "inode_changed_since_open",
      beat: { via: "write", path: "src/rotation.rs", note: "Pulling rotation detection into its own module.", content: 'use std::fs;\nuse std::os::unix::fs::MetadataExt;\nuse std::path::Path;\n\npub fn inode_changed_since_open(path: &Path, opened_ino: u64) -> std::io::Result<bool> {\n    match fs::metadata(path) {\n        Ok(m) => Ok(m.ino() != opened_ino),\n        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),\n        Err(e) => Err(e),\n    }\n}\n' },
    },
    {
      id: "env", kind: "name", question: "Which environment variable overrides the config file location?", answer: "LOGTAIL_CONFIG_PATH",
      beat: { via: "user", text: "Also: LOGTAIL_CONFIG_PATH overrides where the config file is looked up; our CI sets it.", reply: "OK, the env var wins over the default location and the command line wins over both." },
    },
  ],
  reversal: {
    id: "filter-parser", question: "Which approach do we use for the filter expression parser?", rejected: "pest grammar", chosen: "Pratt parser",
    propose: "A pest grammar would give us the filter language quickly. Adding the grammar module.",
    path: "src/filter/grammar.rs",
    first: 'use pest_derive::Parser;\n\n#[derive(Parser)]\n#[grammar_inline = r#"\nexpr = { term ~ ((and | or) ~ term)* }\nterm = { field ~ op ~ value }\n"#]\npub struct FilterGrammar;\n',
    failure: { test: "size::release_binary_budget", file: "tests/size.rs:17:5", message: "release binary is 4.6 MB stripped, budget 4.0 MB" },
    reject: "The pest grammar pushes us over the size budget; that is the failing check. I'll write a hand-written Pratt parser instead; the grammar is tiny.",
    adopt: "Replacing it with a hand-written Pratt parser: binding powers for and/or, a token iterator.",
    second: 'pub fn parse_expr(tokens: &mut Tokens, min_bp: u8) -> Result<Expr, ParseError> {\n    let mut lhs = parse_term(tokens)?;\n    while let Some(op) = tokens.peek_op() {\n        let (l, r) = op.binding_power();\n        if l < min_bp {\n            break;\n        }\n        tokens.next();\n        lhs = Expr::bin(op, lhs, parse_expr(tokens, r)?);\n    }\n    Ok(lhs)\n}\n',
  },
  bashOnly: [
    { command: "git rm -q src/watch_fsevents.rs && git status --short", output: "D  src/watch_fsevents.rs", note: "Deleting the old watcher module, nothing uses it.", deleted: ["src/watch_fsevents.rs"] },
    { command: "cargo run --quiet --example gen_rotating_logs > tests/data/rotating.log && wc -l tests/data/rotating.log", output: "4096 tests/data/rotating.log", note: "A generated log with rotations in it for the follow tests.", created: ["tests/data/rotating.log"] },
  ],
};

export const reactDashboard: Scenario = {
  name: "react-fleet-dashboard",
  project: "fleet-dashboard",
  description: "A React dashboard for a delivery fleet: live vehicle map, route table, driver shifts.",
  lang: "tsx",
  shape: "short",
  thinking: true,
  target: 160_000,
  vocab: { nouns: ["vehicle", "route", "driver", "stop", "depot"], verbs: ["load", "select", "sort", "group", "show", "filter"] },
  flavor: "service",
  files: ["src/components/VehicleMap.tsx", "src/components/RouteTable.tsx", "src/components/ShiftPlanner.tsx", "src/api/client.ts", "src/state/fleetStore.ts", "src/hooks/usePolling.ts"],
  testFiles: ["src/components/VehicleMap.test.tsx", "src/components/RouteTable.test.tsx", "src/state/fleetStore.test.ts", "src/api/client.test.ts"],
  test: "npx vitest run",
  newFiles: ["src/components/RouteSortHeader.tsx", "src/components/ShiftGrid.tsx"],
  steps: ["live vehicle positions on the map", "a sortable route table", "the driver shift planner", "offline mode with a service worker", "keyboard shortcuts"],
  nextKeywords: ["service worker"],
  laterKeywords: ["keyboard shortcut"],
  opening:
    "fleet-dashboard, the plan for this session:\n1. live vehicle positions on the map\n2. a sortable route table\n3. the driver shift planner\n4. offline mode with a service worker\n5. keyboard shortcuts\n\nKeep it to React 18 function components, and no CSS-in-JS: plain CSS modules. We tried Redux Toolkit here and ripped it out; state stays in the zustand store. Go with 1.",
  facts: [
    { id: "constraint-css", kind: "constraint", question: "What did the user rule out for styling?", answer: "CSS-in-JS", beat: { via: "opening" } },
    { id: "rejected-redux", kind: "rejected", question: "Which state library was tried in this app and removed?", answer: "Redux Toolkit", beat: { via: "opening" } },
    {
      id: "ws-port", kind: "value", question: "Which port does the dev telemetry websocket use?", answer: "39417",
      beat: { via: "read", path: ".env.development", note: "Where does the dev build get its telemetry from?", content: "VITE_API_BASE=http://localhost:5173/api\nVITE_TELEMETRY_WS=ws://localhost:39417/positions\nVITE_MAP_STYLE=streets-v2" },
    },
    {
      id: "render-error", kind: "error", question: "What error did the first map test run fail with?", answer: "Maximum update depth exceeded",
      beat: { via: "fail", command: "npx vitest run src/components/VehicleMap.test.tsx", failure: { test: "VehicleMap > moves markers on new positions", file: "src/components/VehicleMap.test.tsx", message: "Error: Maximum update depth exceeded in VehicleMarker (setState inside useEffect without deps)" }, quote: "Maximum update depth exceeded in VehicleMarker: the effect sets the marker position and depends on nothing, so it runs every render. Giving it the position as its dependency.", fix: { path: "src/components/VehicleMap.tsx", oldText: "useEffect(() => setPos(next));", newText: "useEffect(() => setPos(next), [next.lat, next.lng]);" } },
    },
    {
      id: "hook-name", kind: "name", question: "What is the hook that throttles position updates called?", answer: "useThrottledPositions",
      beat: { via: "write", path: "src/hooks/positions.ts", note: "A hook that batches the position stream per animation frame.", content: 'import { useEffect, useRef, useState } from "react";\n\nexport function useThrottledPositions(source: EventTarget): Map<string, LatLng> {\n  const pending = useRef(new Map<string, LatLng>());\n  const [shown, setShown] = useState(new Map<string, LatLng>());\n  useEffect(() => {\n    let frame = 0;\n    const onMsg = (e: Event) => {\n      const p = (e as MessageEvent).data as Position;\n      pending.current.set(p.vehicleId, p);\n      if (!frame) frame = requestAnimationFrame(() => { frame = 0; setShown(new Map(pending.current)); });\n    };\n    source.addEventListener("message", onMsg);\n    return () => source.removeEventListener("message", onMsg);\n  }, [source]);\n  return shown;\n}\n' },
    },
    {
      id: "tile-key", kind: "name", question: "Which env variable holds the map tile key?", answer: "VITE_TILES_KEY_EU",
      beat: { via: "user", text: "The tile key is in VITE_TILES_KEY_EU; never commit it, it comes from the deploy secrets.", reply: "Understood; it is read from the environment only and the example env file gets a placeholder." },
    },
  ],
  reversal: {
    id: "live-transport", question: "Which approach do we use to get live vehicle positions?", rejected: "polling every two seconds", chosen: "telemetry websocket",
    propose: "Simplest first: polling every two seconds with the existing usePolling hook.",
    path: "src/api/livePositions.ts",
    first: 'import { usePolling } from "../hooks/usePolling";\n\nexport const useLivePositions = () => usePolling("/api/positions", 2000);\n',
    failure: { test: "live positions > keeps request rate under budget", file: "src/api/client.test.ts", message: "AssertionError: 1800 requests/hour per tab exceeds the 120 budget" },
    reject: "Polling every two seconds would hammer the API with 40 dispatchers open. I'll use the telemetry websocket instead.",
    adopt: "Switching to the telemetry websocket with a reconnect backoff.",
    second: 'export function openLivePositions(url: string): WebSocket {\n  const ws = new WebSocket(url);\n  ws.binaryType = "arraybuffer";\n  return ws;\n}\n',
  },
  decision: { id: "map-lib", question: "Which map library do we use?", chosen: "MapLibre GL", rejected: ["Leaflet"], say: "For the map keep MapLibre GL; don't switch to Leaflet, we need the vector tiles.", reply: "OK, MapLibre GL stays; markers become a GeoJSON source." },
  bashOnly: [
    { command: "git rm -q src/components/LegacyMapFrame.tsx src/styles/legacy-map.css", output: "rm 'src/components/LegacyMapFrame.tsx'\nrm 'src/styles/legacy-map.css'", note: "The iframe map is gone from every page; removing it.", deleted: ["src/components/LegacyMapFrame.tsx", "src/styles/legacy-map.css"] },
    { command: "node scripts/record-telemetry.mjs --vehicles 25 --minutes 10 > src/test/fixtures/positions-10min.ndjson && wc -l src/test/fixtures/positions-10min.ndjson", output: "15000 src/test/fixtures/positions-10min.ndjson", note: "Recording a replayable telemetry fixture for the map tests.", created: ["src/test/fixtures/positions-10min.ndjson"] },
  ],
};
