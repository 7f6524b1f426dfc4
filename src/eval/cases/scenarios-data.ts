// The cases' scenarios, part two: a Python data pipeline, a Go service and a Rust CLI, each with
// its own planted tokens (words its vocabulary never produces).
import type { Scenario } from "./scenario.js";

export const etlPipeline: Scenario = {
  name: "py-etl-pipeline",
  project: "meter-etl",
  description: "A Python pipeline loading smart-meter readings into a warehouse: dedup, late readings, a backfill.",
  lang: "py",
  shape: "long",
  thinking: true,
  target: 80_000,
  vocab: { nouns: ["reading", "meter", "tariff", "site", "interval"], verbs: ["load", "clean", "merge", "normalize", "split", "emit"] },
  flavor: "pipeline",
  files: ["src/meter_etl/stages/dedup.py", "src/meter_etl/stages/normalize.py", "src/meter_etl/io/warehouse.py", "src/meter_etl/io/s3_source.py", "src/meter_etl/cli.py"],
  testFiles: ["tests/test_dedup.py", "tests/test_normalize.py", "tests/test_warehouse.py", "tests/test_cli.py", "tests/test_s3_source.py"],
  test: "pytest -q",
  newFiles: ["src/meter_etl/stages/late_readings.py", "src/meter_etl/backfill.py"],
  steps: ["deduplicate readings by meter and interval", "route late readings to a correction table", "a resumable backfill command", "a daily tariff reconciliation report", "the Grafana freshness alerts"],
  nextKeywords: ["tariff reconciliation"],
  laterKeywords: ["freshness alert"],
  opening:
    "Today on meter-etl. Plan:\n1. deduplicate readings by meter and interval\n2. route late readings to a correction table\n3. a resumable backfill command\n4. a daily tariff reconciliation report\n5. the Grafana freshness alerts\n\nRules: stay on Python 3.11 with pandas only, no polars. Every stage must be idempotent on re-run. We gave up on Spark Structured Streaming for this last year; it stays batch. Go ahead with 1.",
  facts: [
    { id: "constraint-polars", kind: "constraint", question: "Which library did the user rule out for the pipeline's dataframes?", answer: "no polars", beat: { via: "opening" } },
    { id: "rejected-streaming", kind: "rejected", question: "Which streaming engine was given up on for this pipeline last year?", answer: "Spark Structured Streaming", beat: { via: "opening" } },
    {
      id: "late-window", kind: "value", question: "How many seconds late may a reading arrive before it counts as late, per the pipeline settings?", answer: "8643",
      beat: { via: "read", path: "config/pipeline.toml", note: "Checking the pipeline settings first.", content: '[source]\nbucket = "s3://meter-raw-eu-west-1"\nprefix = "readings/v2/"\n\n[dedup]\nkey = ["meter_id", "interval_start"]\n\n[late]\nlate_after_seconds = 8643\ncorrection_table = "readings_corrections"\n\n[warehouse]\nschema = "energy"\nbatch_rows = 20000' },
    },
    {
      id: "dup-error", kind: "error", question: "What did the first dedup test run report as the error?", answer: "DuplicateKeyError: 14 rows",
      beat: { via: "fail", command: "pytest -q tests/test_dedup.py", failure: { test: "test_dedup_keeps_latest_revision", file: "tests/test_dedup.py", message: "meter_etl.errors.DuplicateKeyError: 14 rows share (meter_id, interval_start)" }, quote: "DuplicateKeyError: 14 rows share (meter_id, interval_start). The stage keeps the first revision instead of the latest; sorting by revision before dropping duplicates.", fix: { path: "src/meter_etl/stages/dedup.py", oldText: 'frame = frame.drop_duplicates(subset=KEY, keep="first")', newText: 'frame = frame.sort_values("revision").drop_duplicates(subset=KEY, keep="last")' } },
    },
    {
      id: "stage-name", kind: "name", question: "What is the function that collapses revised readings called?", answer: "fold_superseded_revisions",
      beat: { via: "write", path: "src/meter_etl/stages/revisions.py", note: "The revision handling gets its own module.", content: 'import pandas as pd\n\n\ndef fold_superseded_revisions(frame: pd.DataFrame) -> pd.DataFrame:\n    """Keep only the newest revision of each (meter_id, interval_start)."""\n    ordered = frame.sort_values(["meter_id", "interval_start", "revision"])\n    return ordered.groupby(["meter_id", "interval_start"], as_index=False).last()\n' },
    },
    {
      id: "warehouse-role", kind: "name", question: "Which warehouse role must the loader connect as?", answer: "etl_writer_q7",
      beat: { via: "user", text: "Heads up: the loader must connect as the warehouse role etl_writer_q7, the old shared login is being revoked this week.", reply: "Got it, the loader will take that role from its settings and never fall back to the shared login." },
    },
  ],
  reversal: {
    id: "dedup-engine", question: "Which approach do we use to deduplicate readings?", rejected: "DuckDB", chosen: "sort and drop_duplicates in pandas",
    propose: "One option is a DuckDB window query over the batch: ROW_NUMBER per key, keep the newest. Writing it that way.",
    path: "src/meter_etl/stages/dedup_sql.py",
    first: 'import duckdb\n\nQUERY = """\nSELECT * EXCLUDE (rn) FROM (\n  SELECT *, ROW_NUMBER() OVER (PARTITION BY meter_id, interval_start ORDER BY revision DESC) AS rn FROM batch\n) WHERE rn = 1\n"""\n\n\ndef dedup(frame):\n    return duckdb.query_df(frame, "batch", QUERY).df()\n',
    failure: { test: "test_dedup_sql_runs", file: "tests/test_dedup.py", message: "ModuleNotFoundError: No module named 'duckdb'" },
    reject: "DuckDB would be a new dependency for one query, which the constraints rule out. I'll do it with sort and drop_duplicates in pandas instead.",
    adopt: "Right, back to sort and drop_duplicates in pandas; the module keeps the same function name.",
    second: 'KEY = ["meter_id", "interval_start"]\n\n\ndef dedup(frame):\n    return frame.sort_values("revision").drop_duplicates(subset=KEY, keep="last")\n',
  },
  bashOnly: [
    { command: "git rm -q src/meter_etl/stages/legacy_merge.py && rm -f data/tmp/dedup-scratch.parquet && git status --short", output: "D  src/meter_etl/stages/legacy_merge.py", note: "Removing the dead merge stage and the scratch file it left behind.", deleted: ["src/meter_etl/stages/legacy_merge.py", "data/tmp/dedup-scratch.parquet"] },
    { command: "python scripts/sample_readings.py --meters 40 --days 3 > tests/data/readings_3d.csv && wc -l tests/data/readings_3d.csv", output: "11521 tests/data/readings_3d.csv", note: "A three-day sample so the tests see revisions across midnight.", created: ["tests/data/readings_3d.csv"] },
  ],
};

export const ledgerService: Scenario = {
  name: "go-ledger-service",
  project: "ledger-svc",
  description: "A Go double-entry ledger service: transfer posting, balance snapshots, an audit trail.",
  lang: "go",
  shape: "short",
  thinking: false,
  target: 100_000,
  vocab: { nouns: ["account", "posting", "journal", "balance", "transfer"], verbs: ["post", "fetch", "verify", "apply", "list", "close"] },
  flavor: "service",
  files: ["internal/ledger/store.go", "internal/ledger/postings.go", "internal/ledger/handlers.go", "internal/balance/snapshot.go", "internal/audit/trail.go"],
  testFiles: ["ledger-svc/internal/ledger", "ledger-svc/internal/balance", "ledger-svc/internal/audit"],
  test: "go test ./...",
  newFiles: ["internal/balance/snapshot_writer.go", "internal/audit/reversals.go"],
  steps: ["atomic posting of transfers", "balance snapshots every thousand postings", "an audit trail for reversals", "multi-currency FX revaluation", "the gRPC streaming API"],
  nextKeywords: ["FX revaluation"],
  laterKeywords: ["gRPC streaming"],
  opening:
    "ledger-svc work for today:\n1. atomic posting of transfers\n2. balance snapshots every thousand postings\n3. an audit trail for reversals\n4. multi-currency FX revaluation\n5. the gRPC streaming API\n\nHard rules: amounts are int64 minor units, never floats. Nothing may bypass the journal table. We already tried event sourcing with Kafka here and pulled it out, so no event bus. Begin with step 1.",
  facts: [
    { id: "constraint-int64", kind: "constraint", question: "How must monetary amounts be represented, per the user's rules?", answer: "int64 minor units", beat: { via: "opening" } },
    { id: "rejected-kafka", kind: "rejected", question: "Which architecture was tried in this service before and pulled out?", answer: "Kafka", beat: { via: "opening" } },
    {
      id: "db-port", kind: "value", question: "On which port does the ledger's test database listen?", answer: "55871",
      beat: { via: "read", path: "deploy/compose.test.yml", note: "How do the tests reach Postgres?", content: 'services:\n  ledger-db:\n    image: postgres:16\n    environment:\n      POSTGRES_DB: ledger_test\n      POSTGRES_PASSWORD: ledger\n    ports:\n      - "55871:5432"\n    tmpfs:\n      - /var/lib/postgresql/data' },
    },
    {
      id: "posting-error", kind: "error", question: "What error did the first posting test report?", answer: "ErrUnbalancedEntry",
      beat: { via: "fail", command: "go test ./internal/ledger/...", failure: { test: "TestPostTransferAtomic", file: "postings_test.go:88", message: "ErrUnbalancedEntry: debit 1200 != credit 1150" }, quote: "It fails with ErrUnbalancedEntry: debit 1200 != credit 1150. The fee leg is written after the balance check; moving the check after all legs are built.", fix: { path: "internal/ledger/postings.go", oldText: "if err := checkBalanced(legs[:2]); err != nil {", newText: "if err := checkBalanced(legs); err != nil {" } },
    },
    {
      id: "lock-fn", kind: "name", question: "What is the function that takes the per-account row locks called?", answer: "LockAccountsInIDOrder",
      beat: { via: "write", path: "internal/ledger/locks.go", note: "Lock ordering goes in one place so deadlocks cannot creep back.", content: 'package ledger\n\nimport (\n\t"context"\n\t"database/sql"\n\t"sort"\n)\n\n// LockAccountsInIDOrder locks the rows in ascending id order so two transfers never deadlock.\nfunc LockAccountsInIDOrder(ctx context.Context, tx *sql.Tx, ids []int64) error {\n\tsort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })\n\tfor _, id := range ids {\n\t\tif _, err := tx.ExecContext(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}\n' },
    },
    {
      id: "flag", kind: "name", question: "Which feature flag gates the new posting path?", answer: "LEDGER_ATOMIC_V3",
      beat: { via: "user", text: "Put the new posting path behind the LEDGER_ATOMIC_V3 flag; ops flips it per region.", reply: "Will do: the handler reads the flag once per request and the old path stays until it is removed." },
    },
  ],
  reversal: {
    id: "concurrency", question: "Which approach do we use to keep concurrent transfers consistent?", rejected: "optimistic version checks", chosen: "row locks",
    propose: "I'd go with optimistic version checks: a version column per account and a retry on conflict.",
    path: "internal/ledger/occ.go",
    first: 'package ledger\n\n// applyWithVersion retries the posting when an account version moved underneath it.\nfunc applyWithVersion(tx Tx, p Posting) error {\n\tfor attempt := 0; attempt < 3; attempt++ {\n\t\tif err := tx.UpdateIfVersion(p.Account, p.Version, p.Delta); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn ErrConflict\n}\n',
    failure: { test: "TestConcurrentTransfersHot", file: "occ_test.go:41", message: "ErrConflict after 3 attempts: 212 of 500 transfers failed" },
    reject: "That is the problem with optimistic version checks on hot accounts: a third of them fail. I'll take row locks in id order instead.",
    adopt: "Agreed, row locks in id order; the version loop goes away.",
    second: 'package ledger\n\n// applyLocked posts under the row locks taken in id order.\nfunc applyLocked(tx Tx, p Posting) error {\n\treturn tx.Update(p.Account, p.Delta)\n}\n',
  },
  decision: { id: "snapshot-store", question: "Where are balance snapshots kept?", chosen: "balance_snapshots", rejected: ["materialized views"], say: "For the snapshots later, use a balance_snapshots table, not materialized views; the refresh locks were the pain last time.", reply: "Understood, a plain table written in the posting transaction." },
  bashOnly: [
    { command: "git rm -q internal/ledger/legacy_batch.go internal/ledger/legacy_batch_test.go", output: "rm 'internal/ledger/legacy_batch.go'\nrm 'internal/ledger/legacy_batch_test.go'", note: "The batch poster is unused since the handler rewrite; deleting it.", deleted: ["internal/ledger/legacy_batch.go", "internal/ledger/legacy_batch_test.go"] },
    { command: "go run ./tools/genfixtures -accounts 64 > internal/ledger/testdata/accounts_64.json && wc -c internal/ledger/testdata/accounts_64.json", output: "18934 internal/ledger/testdata/accounts_64.json", note: "Generating a fixture with enough accounts to make lock contention show.", created: ["internal/ledger/testdata/accounts_64.json"] },
  ],
};
