// The sandbox has its own IPC namespace: a System V shared-memory segment, message queue and
// semaphore set held by the user's own processes (made here by the test, outside the sandbox,
// holding a secret) can be neither listed, read, overwritten nor sent to by the model's bash. The
// same probe run outside the sandbox reads the secret, so the test can fail. perl is Debian's
// perl-base (essential: always installed); its shmget/shmread/msgsnd are the system calls.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const perl = spawnSync("perl", ["-e", "exit 0"]).status === 0;
const skip = !probe.ok
  ? `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`
  : perl
    ? false
    : "perl is not installed (Debian package perl-base)";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const SECRET = "secret-of-the-user";

/** A segment holding SECRET, a message queue and a semaphore set, private to this user (0600); removed after the test. */
function userIpc(t: TestContext): { shm: number; queue: number; sem: number } {
  const made = spawnSync("perl", ["-e", `my $m = shmget(0, 4096, 0600 | 01000) // die "shmget: $!"; shmwrite($m, "${SECRET}", 0, ${SECRET.length}) or die "shmwrite: $!"; my $q = msgget(0, 0600 | 01000) // die "msgget: $!"; my $s = semget(0, 1, 0600 | 01000) // die "semget: $!"; print "$m $q $s\\n"`], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  const [shm, queue, sem] = made.stdout.trim().split(" ").map(Number);
  t.after(() => spawnSync("ipcrm", ["-m", String(shm), "-q", String(queue), "-s", String(sem)]));
  return { shm, queue, sem };
}

/** Reads and overwrites the segment, sends to the queue, and lists what `ipcs` shows of the three ids. */
function probeScript(ids: { shm: number; queue: number; sem: number }): string {
  const perlCode = `my $b; if (shmread(${ids.shm}, $b, 0, ${SECRET.length})) { print "read: $b\\n"; shmwrite(${ids.shm}, "overwritten", 0, 11); } else { print "shm refused: $!\\n" } if (msgsnd(${ids.queue}, pack("l! a*", 1, "hi"), 0)) { print "sent\\n" } else { print "queue refused: $!\\n" }`;
  return `perl -e '${perlCode}'; ipcs -m | awk '$2 == ${ids.shm} { print "listed shm" }'; ipcs -q | awk '$2 == ${ids.queue} { print "listed queue" }'; ipcs -s | awk '$2 == ${ids.sem} { print "listed sem" }'`;
}

test("a sandboxed command cannot see, read, overwrite or send to the user's System V shared memory, queues and semaphores", { skip }, async (t) => {
  const ids = userIpc(t);
  const script = probeScript(ids);
  // outside the sandbox, the same probe reads the secret (then the test puts it back)
  const outside = spawnSync("/bin/sh", ["-c", script], { encoding: "utf8" });
  assert.match(outside.stdout, new RegExp(`^read: ${SECRET}$`, "m"), outside.stdout + outside.stderr);
  assert.match(outside.stdout, /^listed shm$/m);
  assert.match(outside.stdout, /^listed sem$/m);
  spawnSync("perl", ["-e", `shmwrite(${ids.shm}, "${SECRET}", 0, ${SECRET.length}) or die`]);

  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const inside = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: script });
  assert.doesNotMatch(inside.text, /^read:/m, inside.text);
  assert.match(inside.text, /^shm refused: Invalid argument$/m, inside.text);
  assert.match(inside.text, /^queue refused: Invalid argument$/m, inside.text);
  assert.doesNotMatch(inside.text, /^listed/m, inside.text);
  // and the segment outside still holds the secret
  const after = spawnSync("perl", ["-e", `my $b; shmread(${ids.shm}, $b, 0, ${SECRET.length}) or die "$!"; print $b`], { encoding: "utf8" });
  assert.equal(after.stdout, SECRET);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
