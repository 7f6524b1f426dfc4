// The cases' scenarios, part one: a TypeScript web API, a Python data pipeline, a Go service and a
// Rust CLI. Every planted token is a word the vocabulary never produces, so it occurs only where planted.
import type { Scenario } from "./scenario.js";

export const ordersApi: Scenario = {
  name: "ts-orders-api",
  project: "orders-api",
  description: "A TypeScript order and refund HTTP API: cursor pagination, idempotent refunds, a cached customer lookup.",
  lang: "ts",
  shape: "short",
  thinking: false,
  target: 61_000,
  vocab: { nouns: ["order", "cart", "refund", "customer", "shipment"], verbs: ["load", "validate", "list", "apply", "format", "resolve"] },
  flavor: "service",
  files: ["src/orders/routes.ts", "src/orders/repository.ts", "src/orders/pagination.ts", "src/refunds/service.ts", "src/customers/lookup.ts", "src/lib/http.ts"],
  testFiles: ["test/orders.test.ts", "test/refunds.test.ts", "test/customers.test.ts", "test/pagination.test.ts"],
  test: "npm test",
  newFiles: ["src/refunds/idempotency.ts", "src/customers/cached-lookup.ts"],
  steps: ["cursor pagination for GET /v1/orders", "idempotent POST /v1/refunds", "the customer lookup behind the cache", "a CSV ledger export for the finance team", "webhook replay for failed deliveries"],
  nextKeywords: ["ledger export"],
  laterKeywords: ["webhook replay"],
  opening:
    "We're working on orders-api today. The plan, in order:\n1. cursor pagination for GET /v1/orders\n2. idempotent POST /v1/refunds\n3. the customer lookup behind the cache\n4. a CSV ledger export for the finance team\n5. webhook replay for failed deliveries\n\nConstraints: no new runtime dependencies, and keep the public response shapes unchanged. We tried a Redis-backed order cache last quarter and dropped it, so don't bring that back. Start with step 1.",
  facts: [
    { id: "constraint-deps", kind: "constraint", question: "What did the user say about adding packages to the project?", answer: "no new runtime dependencies", beat: { via: "opening" } },
    { id: "rejected-cache", kind: "rejected", question: "Which caching approach did the team try last quarter and drop?", answer: "Redis", beat: { via: "opening" } },
    {
      id: "mock-port", kind: "value", question: "Which port does the payments mock listen on in the test config?", answer: "48213",
      beat: { via: "read", path: "config/test.json", note: "The test config tells me how the suite reaches its mocks.", content: '{\n  "db": { "url": "postgres://orders:orders@localhost:5433/orders_test" },\n  "paymentsMock": { "host": "127.0.0.1", "port": 48213 },\n  "log": { "level": "warn" },\n  "pageSize": { "default": 50, "max": 200 }\n}' },
    },
    {
      id: "cursor-error", kind: "error", question: "Which error code did the first pagination test run fail with?", answer: "ERR_CURSOR_SKEW",
      beat: { via: "fail", command: "npm test -- pagination", failure: { test: "rejects a cursor from another page size", file: "test/pagination.test.ts", message: "Error: ERR_CURSOR_SKEW: cursor was issued for pageSize=50, request has pageSize=20" }, quote: "The run fails with ERR_CURSOR_SKEW: the cursor carries the page size it was issued for, and the check compares it before the request's size is normalised. Normalising first.", fix: { path: "src/orders/pagination.ts", oldText: "const size = req.query.pageSize;", newText: "const size = clampPageSize(req.query.pageSize);" } },
    },
    {
      id: "codec-name", kind: "name", question: "What is the function that encodes and signs the pagination cursor called?", answer: "sealOrderCursor",
      beat: { via: "write", path: "src/orders/cursor-codec.ts", note: "Putting the cursor encoding in its own module.", content: 'import { createHmac } from "node:crypto";\n\nexport function sealOrderCursor(createdAt: string, id: string, secret: string): string {\n  const body = Buffer.from(JSON.stringify([createdAt, id])).toString("base64url");\n  const mac = createHmac("sha256", secret).update(body).digest("base64url").slice(0, 16);\n  return `${body}.${mac}`;\n}\n' },
    },
    {
      id: "hmac-env", kind: "name", question: "Which environment variable holds the secret the cursors are signed with?", answer: "ORDERS_CURSOR_HMAC_KEY",
      beat: { via: "user", text: "The signing secret comes from ORDERS_CURSOR_HMAC_KEY in every environment; read it once at startup.", reply: "Understood: read once at startup and passed down, never read per request." },
    },
  ],
  reversal: {
    id: "pagination", question: "Which approach do we use for paginating GET /v1/orders?", rejected: "offset pagination", chosen: "keyset pagination",
    propose: "The quickest version is offset pagination: LIMIT/OFFSET with the offset in the cursor. Writing the query module that way.",
    path: "src/orders/page-query.ts",
    first: 'export const pageQuery = (offset: number, size: number) => ({\n  text: "SELECT * FROM orders WHERE account_id = $1 ORDER BY created_at DESC LIMIT $2 OFFSET $3",\n  values: [size, offset],\n});\n',
    failure: { test: "returns stable pages while orders are inserted", file: "test/pagination.test.ts", message: "AssertionError: expected ord_0412 to appear once, found it on pages 2 and 3" },
    reject: "Offset pagination breaks as soon as orders arrive mid-scroll, which is exactly what that test catches. I'll use keyset pagination on (created_at, id) instead.",
    adopt: "Switching to keyset pagination on (created_at, id): the cursor carries the last row's pair.",
    second: 'export const pageQuery = (after: [string, string] | null, size: number) => ({\n  text: after\n    ? "SELECT * FROM orders WHERE account_id = $1 AND (created_at, id) < ($3, $4) ORDER BY created_at DESC, id DESC LIMIT $2"\n    : "SELECT * FROM orders WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",\n  values: after ? [size, ...after] : [size],\n});\n',
  },
  decision: { id: "idempotency-store", question: "Where are the refund idempotency keys stored?", chosen: "idempotency table", rejected: ["in-process LRU"], say: "For step 2 later: the refund keys go in a Postgres idempotency table, not an in-process LRU; we run three replicas.", reply: "Noted, a table with a unique key per account, shared by the replicas." },
  bashOnly: [
    { command: "git rm -q src/orders/legacy-pager.ts test/legacy-pager.test.ts && git status --short", output: "D  src/orders/legacy-pager.ts\nD  test/legacy-pager.test.ts", note: "The old pager module has no importers left; removing it and its test.", deleted: ["src/orders/legacy-pager.ts", "test/legacy-pager.test.ts"] },
    { command: "node scripts/make-fixtures.mjs --orders 250 > test/fixtures/orders-250.json && wc -l test/fixtures/orders-250.json", output: "  251 test/fixtures/orders-250.json", note: "Generating a larger fixture so the page boundaries get exercised.", created: ["test/fixtures/orders-250.json"] },
  ],
};
