// Child process for lock.test.ts: `node lock-child.mjs <session file>` (started by LineChild,
// line-child.ts). Prints "loaded <pid>", then answers one line per command on stdin:
//   open        -> "opened <pid>" | "error <code> <JSON of error.data>"   (open for writing)
//   open-at <t> -> the same, opening at time <t> (ms since the epoch, fractional; busy-waits for
//                  it, so that several processes open within microseconds of each other)
//   open-ro     -> "opened-ro <entry count>" | "error ..."                (read-only open)
//   append <t>  -> "appended <id>" (a user message with text <t>, to the session opened last)
//   close       -> "closed" (closes every session this child opened)
//   exit        -> exits with code 0 without closing anything (the store's exit hook must release the lock)
import { store } from "./session-module.mjs";

const { SessionFile } = store;
const file = process.argv[2];
const open = [];

function handle(line) {
  const [command, ...rest] = line.split(" ");
  try {
    switch (command) {
      case "open-at": {
        const at = Number(rest[0]);
        while (performance.timeOrigin + performance.now() < at);
        open.push(SessionFile.open(file));
        return `opened ${process.pid}`;
      }
      case "open":
        open.push(SessionFile.open(file));
        return `opened ${process.pid}`;
      case "open-ro": {
        const s = SessionFile.open(file, { readOnly: true });
        open.push(s);
        return `opened-ro ${s.entryCount}`;
      }
      case "append": {
        const entry = open[open.length - 1].appendMessage({ role: "user", content: rest.join(" "), timestamp: Date.now() });
        return `appended ${entry.id}`;
      }
      case "close":
        while (open.length > 0) open.pop().close();
        return "closed";
      case "exit":
        process.exit(0);
      default:
        return `error UnknownCommand ${JSON.stringify({ line })}`;
    }
  } catch (err) {
    return `error ${err.code ?? err.name} ${JSON.stringify(err.data ?? { message: err.message })}`;
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    process.stdout.write(handle(line) + "\n");
  }
});
process.stdin.on("end", () => process.exit(0));
process.stdout.write(`loaded ${process.pid}\n`);
