// Child process for crash.test.ts: `node appender-child.mjs <session file>` (started by LineChild, line-child.ts).
// Prints "loaded" once ready to start, waits for "go <round>" on stdin (so the parent can start
// the next child while the current one runs), opens the file for writing (taking over the stale
// lock a killed predecessor left), prints "ready" and appends sealed messages in a tight loop,
// printing each entry's id after append() returns, until it is killed.
// Output goes through writeSync(1): process.stdout writes to a pipe synchronously only while the
// pipe has room, then queues them in this process, where a SIGKILL loses them; fd 1, never
// touched by process.stdout, stays blocking, so an id printed is an id the parent sees.
//
// Sealed messages (the format checkSealedEntry in sealed-message.ts verifies), tag =
// "r<round>-n<index in round>". A big payload's block is built and hashed once and reused: the
// session keeps every appended entry in memory, and fresh 200 KB strings per entry would make the
// child spend much of its time in the garbage collector rather than appending.
import { createHash, randomBytes } from "node:crypto";
import { writeSync } from "node:fs";
import { store } from "./session-module.mjs";

const { SessionFile, SessionError } = store;
const say = (text) => writeSync(1, `${text}\n`);
const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: appender-child.mjs <session file>\n");
  process.exit(2);
}

function randomText(length, alphabet) {
  const parts = new Array(length);
  for (let i = 0; i < length; i++) parts[i] = alphabet[Math.floor(Math.random() * alphabet.length)];
  return parts.join("");
}

// No "{" or "}" in payloads: see the todo test in crash.test.ts about a torn line ending in "}".
const ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      .,:;-_/";
// big payloads: plain ASCII, so serializing them is little more than a copy and much of the
// child's time goes to the write itself (escapes and multi-byte characters are in the small ones)
const BIG_ALPHABET = Buffer.from(ASCII, "latin1");
// small payloads: also 3-byte UTF-8 characters
const SMALL_ALPHABET = [...ASCII, '"', "\\", "\n", "\t", "\u0001", "é", "ß", "漢", "字", "—", "€"];

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");
const seal = (payload) => {
  const h = sha256(payload);
  return { text: `${payload}\nsha256:${h}`, h };
};

const bigPool = randomBytes(256 * 1024);
for (let i = 0; i < bigPool.length; i++) bigPool[i] = BIG_ALPHABET[bigPool[i] % BIG_ALPHABET.length];
const bigText = bigPool.toString("latin1");
const big = [];
for (let i = 0; i < 12; i++) {
  const length = 50_000 + Math.floor(Math.random() * 150_000);
  const start = Math.floor(Math.random() * (bigText.length - length));
  big.push(seal(bigText.slice(start, start + length)));
}
const smallPool = randomText(16 * 1024, SMALL_ALPHABET);

function message(tag) {
  let block;
  if (Math.random() < 0.2) {
    block = big[Math.floor(Math.random() * big.length)];
  } else {
    const length = 20 + Math.floor(Math.random() * 3000);
    const start = Math.floor(Math.random() * (smallPool.length - length));
    block = seal(smallPool.slice(start, start + length));
  }
  const content = [
    { type: "text", text: block.text },
    { type: "text", text: `${tag}\nsha256:${sha256(`${block.h}\n${tag}`)}` },
  ];
  return { role: "user", content, timestamp: Date.now() };
}

function run(round) {
  let session;
  try {
    session = SessionFile.open(file);
  } catch (err) {
    process.stderr.write(`open failed: ${err instanceof SessionError ? err.code : ""} ${err.message}\n`);
    process.exit(3);
  }
  say("ready");
  for (let n = 0; ; n++) {
    const entry = session.appendMessage(message(`r${round}-n${n}`));
    say(entry.id);
  }
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
  const m = /^go (\S+)\n/.exec(input);
  if (m) run(m[1]);
});
process.stdin.on("end", () => process.exit(0)); // the parent went away before "go"
say("loaded");
