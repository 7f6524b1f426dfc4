// The cases' scenarios, part four: the three largest (a Python web app, a Go operator, a
// TypeScript build tool).
import type { Scenario } from "./scenario.js";

export const clinicBooking: Scenario = {
  name: "py-clinic-booking",
  project: "clinic-booking",
  description: "A FastAPI booking service for a clinic chain: slot search, waitlists, SMS reminders.",
  lang: "py",
  shape: "long",
  thinking: false,
  target: 200_000,
  vocab: { nouns: ["slot", "patient", "clinic", "booking", "practitioner"], verbs: ["find", "reserve", "cancel", "notify", "list", "merge"] },
  flavor: "service",
  files: ["app/routes/slots.py", "app/routes/bookings.py", "app/services/availability.py", "app/services/waitlist.py", "app/models.py"],
  testFiles: ["tests/test_slots.py", "tests/test_bookings.py", "tests/test_availability.py", "tests/test_waitlist.py"],
  test: "pytest -q",
  newFiles: ["app/services/waitlist_fill.py", "app/services/booking_guard.py"],
  steps: ["slot search across clinics", "a waitlist that fills cancelled slots", "double-booking protection", "SMS reminders the day before", "the practitioner calendar sync"],
  nextKeywords: ["SMS reminder"],
  laterKeywords: ["calendar sync"],
  opening:
    "clinic-booking, plan:\n1. slot search across clinics\n2. a waitlist that fills cancelled slots\n3. double-booking protection\n4. SMS reminders the day before\n5. the practitioner calendar sync\n\nConstraints: patient data never leaves the EU region, and all times are stored in UTC and shown in the clinic's zone. We tried Celery beat for scheduling once and it double-fired after deploys; don't use it. Start with 1.",
  facts: [
    { id: "constraint-eu", kind: "constraint", question: "What did the user require about where patient data may go?", answer: "EU region", beat: { via: "opening" } },
    { id: "rejected-celery", kind: "rejected", question: "Which scheduler was tried once and dropped after it double-fired?", answer: "Celery beat", beat: { via: "opening" } },
    {
      id: "slot-minutes", kind: "value", question: "How long is a slot held while the patient confirms, as the booking settings write it?", answer: "PT21M30S",
      beat: { via: "read", path: "app/settings.yaml", note: "The booking settings first.", content: "booking:\n  standard_slot_minutes: 20\n  max_days_ahead: 62\n  hold: PT21M30S\nregions:\n  default: eu-central-1\n" },
    },
    {
      id: "tz-error", kind: "error", question: "What did the first slot-search test run fail with?", answer: "NonExistentTimeError: 2026-03-29 02:30:00",
      beat: { via: "fail", command: "pytest -q tests/test_slots.py", failure: { test: "test_search_across_dst_change", file: "tests/test_slots.py:58", message: "pytz.exceptions.NonExistentTimeError: 2026-03-29 02:30:00" }, quote: "NonExistentTimeError: 2026-03-29 02:30:00 is the spring-forward gap: the search builds local times naively. Building them from UTC with zoneinfo instead.", fix: { path: "app/services/availability.py", oldText: "start = tz.localize(datetime.combine(day, t))", newText: "start = datetime.combine(day, t, tzinfo=ZoneInfo(clinic.tz))" } },
    },
    {
      id: "fn", kind: "name", question: "What is the function that merges free intervals across practitioners called?", answer: "coalesce_open_windows",
      beat: { via: "write", path: "app/services/windows.py", note: "Interval merging in its own module.", content: 'def coalesce_open_windows(windows):\n    """Merge overlapping (start, end) pairs, sorted by start."""\n    out = []\n    for start, end in sorted(windows):\n        if out and start <= out[-1][1]:\n            out[-1] = (out[-1][0], max(out[-1][1], end))\n        else:\n            out.append((start, end))\n    return out\n' },
    },
    {
      id: "header", kind: "name", question: "Which request header carries the clinic's tenant id?", answer: "X-Clinic-Tenant",
      beat: { via: "user", text: "Every request carries the tenant in the X-Clinic-Tenant header; reject requests without it with 400.", reply: "OK: a dependency reads it and rejects a missing one before any query runs." },
    },
  ],
  reversal: {
    id: "slot-search", question: "Which approach do we use to compute free slots?", rejected: "precomputed slot rows", chosen: "on the fly",
    propose: "I'd store precomputed slot rows per practitioner and day, refreshed nightly.",
    path: "app/services/slot_rows.py",
    first: 'def materialize_day(session, practitioner, day):\n    for start in practitioner.schedule.starts(day):\n        session.add(SlotRow(practitioner_id=practitioner.id, start=start))\n',
    failure: { test: "test_schedule_change_is_visible", file: "tests/test_slots.py:91", message: "AssertionError: slot 09:00 still offered after the schedule moved it" },
    reject: "Precomputed slot rows go stale every time a schedule changes, as that test shows. I'll compute slots on the fly from schedules instead.",
    adopt: "Computing slots on the fly from schedules then, minus bookings and holds.",
    second: 'def free_slots(schedule, bookings, day):\n    taken = {b.start for b in bookings}\n    return [s for s in schedule.starts(day) if s not in taken]\n',
  },
  decision: { id: "lock", question: "How is a double booking prevented?", chosen: "unique index", rejected: ["application-level check"], say: "For step 3 later: a unique index on (practitioner_id, start), not an application-level check; two workers race.", reply: "Agreed, the database decides; the API maps the violation to a 409." },
  bashOnly: [
    { command: "git rm -q app/services/legacy_calendar.py tests/test_legacy_calendar.py", output: "rm 'app/services/legacy_calendar.py'\nrm 'tests/test_legacy_calendar.py'", note: "The old calendar shim is unused; deleting it with its test.", deleted: ["app/services/legacy_calendar.py", "tests/test_legacy_calendar.py"] },
    { command: "python scripts/gen_schedules.py --clinics 6 --weeks 4 > tests/fixtures/schedules_6x4.json && wc -c tests/fixtures/schedules_6x4.json", output: "88211 tests/fixtures/schedules_6x4.json", note: "Generating schedules for six clinics over four weeks.", created: ["tests/fixtures/schedules_6x4.json"] },
  ],
};

export const backupOperator: Scenario = {
  name: "go-backup-operator",
  project: "pg-backup-operator",
  description: "A Kubernetes operator in Go that schedules Postgres backups: a reconcile loop, retention, restore jobs.",
  lang: "go",
  shape: "short",
  thinking: false,
  target: 250_000,
  vocab: { nouns: ["backup", "schedule", "snapshot", "cluster", "job"], verbs: ["reconcile", "create", "prune", "watch", "update", "list"] },
  flavor: "operator",
  files: ["controllers/backup/reconcile.go", "controllers/backup/retention.go", "controllers/restore/job.go", "pkg/storage/s3.go", "api/v1/types.go"],
  testFiles: ["pg-backup-operator/controllers/backup", "pg-backup-operator/controllers/restore", "pg-backup-operator/pkg/storage"],
  test: "go test ./...",
  newFiles: ["controllers/backup/prune.go", "controllers/restore/from_snapshot.go"],
  steps: ["a reconcile loop for backup schedules", "retention by count and age", "restore jobs from a named snapshot", "point-in-time recovery from WAL archives", "a Helm chart"],
  nextKeywords: ["point-in-time recovery"],
  laterKeywords: ["Helm chart"],
  opening:
    "pg-backup-operator, steps:\n1. a reconcile loop for backup schedules\n2. retention by count and age\n3. restore jobs from a named snapshot\n4. point-in-time recovery from WAL archives\n5. a Helm chart\n\nRules: the operator only gets namespace-scoped RBAC, never cluster-admin. Status is written with server-side apply only. We tried CronJobs per schedule before and the object count exploded, so not that. Begin with 1.",
  facts: [
    { id: "constraint-rbac", kind: "constraint", question: "What RBAC scope is the operator allowed?", answer: "namespace-scoped", beat: { via: "opening" } },
    { id: "rejected-cronjobs", kind: "rejected", question: "Which scheduling approach was tried before and dropped because of the object count?", answer: "CronJob", beat: { via: "opening" } },
    {
      id: "metrics-port", kind: "value", question: "Which port does the operator's metrics endpoint bind?", answer: "9447",
      beat: { via: "read", path: "config/manager/manager.yaml", note: "The manager deployment, for the flags it runs with.", content: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: pg-backup-operator\nspec:\n  template:\n    spec:\n      containers:\n        - name: manager\n          args:\n            - --metrics-bind-address=:9447\n            - --leader-elect\n" },
    },
    {
      id: "conflict-error", kind: "error", question: "What error did the first reconcile test report?", answer: "the object has been modified",
      beat: { via: "fail", command: "go test ./controllers/backup/...", failure: { test: "TestReconcileCreatesJob", file: "reconcile_test.go:64", message: "Operation cannot be fulfilled on backupschedules.pg.dev \"nightly\": the object has been modified; please apply your changes to the latest version" }, quote: "The update conflicts (the object has been modified; please apply your changes to the latest version): the loop updates status with a stale copy. Switching the status write to server-side apply.", fix: { path: "controllers/backup/reconcile.go", oldText: "if err := r.Status().Update(ctx, &sched); err != nil {", newText: "if err := r.Status().Patch(ctx, &sched, client.Apply, client.FieldOwner(owner)); err != nil {" } },
    },
    {
      id: "fn", kind: "name", question: "What is the function that computes the next backup time called?", answer: "NextRunAfterJitter",
      beat: { via: "write", path: "controllers/backup/nextrun.go", note: "The schedule arithmetic in one function.", content: 'package backup\n\nimport "time"\n\n// NextRunAfterJitter is the next cron time after now, shifted by a stable per-schedule jitter.\nfunc NextRunAfterJitter(s Schedule, now time.Time, jitter time.Duration) time.Time {\n\treturn s.Next(now.Add(-jitter)).Add(jitter)\n}\n' },
    },
    {
      id: "annotation", kind: "name", question: "Which annotation pauses a backup schedule?", answer: "backups.pg.dev/paused-until",
      beat: { via: "user", text: "Ops pause schedules with the backups.pg.dev/paused-until annotation (an RFC 3339 time); honour it in the loop.", reply: "Will do: a paused schedule requeues at that time and creates nothing before it." },
    },
  ],
  reversal: {
    id: "trigger", question: "Which approach do we use to trigger scheduled backups?", rejected: "ticker goroutine", chosen: "RequeueAfter",
    propose: "I'll start a ticker goroutine per schedule that enqueues a backup at each tick.",
    path: "controllers/backup/ticker.go",
    first: 'package backup\n\nfunc (r *Reconciler) startTicker(s Schedule) {\n\tgo func() {\n\t\tfor range time.Tick(s.Interval()) {\n\t\t\tr.enqueue(s.Name)\n\t\t}\n\t}()\n}\n',
    failure: { test: "TestLeaderChangeStopsTickers", file: "ticker_test.go:33", message: "goroutine leak: 3 tickers still running after leader lost" },
    reject: "A ticker goroutine per schedule leaks when leadership moves; that is the failure. I'll use RequeueAfter from the reconcile loop instead.",
    adopt: "Right, RequeueAfter from the reconcile loop: the next run time becomes the requeue delay.",
    second: 'package backup\n\nfunc requeueFor(next, now time.Time) ctrl.Result {\n\treturn ctrl.Result{RequeueAfter: next.Sub(now)}\n}\n',
  },
  bashOnly: [
    { command: "git rm -q controllers/backup/cronjob_builder.go controllers/backup/cronjob_builder_test.go", output: "rm 'controllers/backup/cronjob_builder.go'\nrm 'controllers/backup/cronjob_builder_test.go'", note: "Deleting the old builder along with its test.", deleted: ["controllers/backup/cronjob_builder.go", "controllers/backup/cronjob_builder_test.go"] },
    { command: "controller-gen crd paths=./api/... output:stdout > config/crd/bases/pg.dev_backupschedules.yaml && wc -l config/crd/bases/pg.dev_backupschedules.yaml", output: "214 config/crd/bases/pg.dev_backupschedules.yaml", note: "Regenerating the CRD after the type change.", created: ["config/crd/bases/pg.dev_backupschedules.yaml"] },
  ],
};

export const buildTool: Scenario = {
  name: "ts-monorepo-builder",
  project: "forge-build",
  description: "A TypeScript build orchestrator for a monorepo: a task graph, a content-hash cache, remote workers.",
  lang: "ts",
  shape: "long",
  thinking: true,
  target: 296_000,
  vocab: { nouns: ["task", "package", "graph", "artifact", "worker"], verbs: ["plan", "hash", "run", "schedule", "collect", "restore"] },
  flavor: "tool",
  files: ["src/graph/plan.ts", "src/graph/topo.ts", "src/cache/hash.ts", "src/cache/store.ts", "src/runner/pool.ts", "src/cli/run.ts"],
  testFiles: ["test/graph.test.ts", "test/cache.test.ts", "test/runner.test.ts", "test/cli.test.ts"],
  test: "npm test",
  newFiles: ["src/cache/output-store.ts", "src/runner/limiter.ts"],
  steps: ["a task graph from the workspace manifests", "content-hash caching of task outputs", "a worker pool with a concurrency limit", "remote cache uploads to object storage", "a watch mode"],
  nextKeywords: ["remote cache upload"],
  laterKeywords: ["watch mode"],
  opening:
    "forge-build, here is the plan:\n1. a task graph from the workspace manifests\n2. content-hash caching of task outputs\n3. a worker pool with a concurrency limit\n4. remote cache uploads to object storage\n5. a watch mode\n\nGround rules: Node 20 built-ins only, and the cache must be byte-for-byte reproducible across machines. We tried wrapping Turborepo before and gave it up, so no wrapper. Start on 1.",
  facts: [
    { id: "constraint-builtins", kind: "constraint", question: "What did the user allow the build tool to depend on?", answer: "built-ins", beat: { via: "opening" } },
    { id: "rejected-turbo", kind: "rejected", question: "Which existing tool did the team try to wrap before giving up?", answer: "Turborepo", beat: { via: "opening" } },
    {
      id: "cache-dir", kind: "value", question: "What is the cache directory name configured for the workspace?", answer: ".forge-cache-v5",
      beat: { via: "read", path: "forge.config.json", note: "Workspace config first.", content: '{\n  "workspaces": ["packages/*", "apps/*"],\n  "cacheDir": ".forge-cache-v5",\n  "concurrency": "auto",\n  "tasks": { "build": { "dependsOn": ["^build"] }, "test": { "dependsOn": ["build"] } }\n}' },
    },
    {
      id: "cycle-error", kind: "error", question: "What error did the first graph test run report?", answer: "ECYCLE",
      beat: { via: "fail", command: "npm test -- graph", failure: { test: "plans the workspace in dependency order", file: "test/graph.test.ts", message: "Error: ECYCLE: @forge/ui -> @forge/theme -> @forge/ui" }, quote: "ECYCLE: @forge/ui -> @forge/theme -> @forge/ui. The fixture's theme package lists ui as a devDependency, and the planner follows devDependencies for build edges. Only dependencies and peerDependencies make build edges.", fix: { path: "src/graph/plan.ts", oldText: "const deps = { ...pkg.dependencies, ...pkg.devDependencies };", newText: "const deps = { ...pkg.dependencies, ...pkg.peerDependencies };" } },
    },
    {
      id: "fn", kind: "name", question: "What is the function that produces a task's cache key called?", answer: "digestTaskInputs",
      beat: { via: "write", path: "src/cache/key.ts", note: "The cache key gets its own module.", content: 'import { createHash } from "node:crypto";\n\nexport function digestTaskInputs(task: TaskSpec, files: readonly [string, string][]): string {\n  const h = createHash("sha256");\n  h.update(task.command).update("\\0");\n  for (const [path, hash] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) h.update(path).update("\\0").update(hash);\n  return h.digest("hex");\n}\n' },
    },
    {
      id: "env", kind: "name", question: "Which environment variable turns the cache off?", answer: "FORGE_NO_CACHE",
      beat: { via: "user", text: "CI sets FORGE_NO_CACHE=1 on release builds; the cache must be skipped entirely then.", reply: "OK: with it set no lookup and no store happen, and the run says so once." },
    },
  ],
  reversal: {
    id: "hash", question: "Which approach do we use to hash task inputs?", rejected: "modification times", chosen: "SHA-256",
    propose: "For speed, I'd key the cache on file modification times plus sizes.",
    path: "src/cache/fingerprint.ts",
    first: 'import { statSync } from "node:fs";\n\nexport const fingerprint = (path: string) => {\n  const s = statSync(path);\n  return `${s.mtimeMs}:${s.size}`;\n};\n',
    failure: { test: "cache hits on a fresh clone", file: "test/cache.test.ts", message: "AssertionError: expected cache hit after clone, got miss for 41 of 41 tasks" },
    reject: "File modification times change on every clone, so nothing would ever hit across machines. I'll key the cache on SHA-256 of file contents instead.",
    adopt: "Switching to SHA-256 of file contents, streamed, with the result memoised per path and size.",
    second: 'import { createHash } from "node:crypto";\nimport { readFileSync } from "node:fs";\n\nexport const fingerprint = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");\n',
  },
  decision: { id: "pool", question: "How are tasks run in parallel?", chosen: "child processes", rejected: ["worker_threads"], say: "For the pool later: child processes, not worker_threads; tasks are shell commands anyway.", reply: "Agreed, the pool spawns child processes with the concurrency limit." },
  bashOnly: [
    { command: "git rm -q src/legacy/turbo-bridge.ts src/legacy/turbo-bridge.test.ts", output: "rm 'src/legacy/turbo-bridge.ts'\nrm 'src/legacy/turbo-bridge.test.ts'", note: "Deleting the old bridge module and its test; nothing imports them.", deleted: ["src/legacy/turbo-bridge.ts", "src/legacy/turbo-bridge.test.ts"] },
    { command: "node scripts/make-workspace.mjs --packages 40 > test/fixtures/workspace-40.json && wc -c test/fixtures/workspace-40.json", output: "30412 test/fixtures/workspace-40.json", note: "A generated 40-package workspace for the planner tests.", created: ["test/fixtures/workspace-40.json"] },
  ],
};
