// The pure parts of the limits at the daemon's edge: which address a limit counts against, the
// failed-auth window, a request's id read from the start of an oversize line, the start of an
// oversize line kept by the framer, and the token length check.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkTokenStrength, generateToken, MIN_TOKEN_LENGTH } from "../../src/rpc/auth.js";
import { LineReader, OVERSIZE_HEAD_BYTES } from "../../protocol/ndjson-lines.js";
import { addressKey } from "../../src/rpc/remote-address.js";
import { headInfo } from "../../src/rpc/request-id-head.js";
import { AuthFailures } from "../../src/rpc/ws-auth-failures.js";
import { oversizeAnswer } from "../../src/cli/acp-stdin.js";

test("addressKey: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64", () => {
  assert.equal(addressKey("127.0.0.1"), "127.0.0.1");
  assert.equal(addressKey("::ffff:10.1.2.3"), "10.1.2.3");
  assert.equal(addressKey("::ffff:a01:203"), "10.1.2.3");
  assert.equal(addressKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressKey(undefined), "");
});

test("AuthFailures: blocks after maxFailures within the window, for blockMs; per address; an old window is forgotten", () => {
  let now = 1_000_000;
  const f = new AuthFailures({ maxFailures: 3, windowMs: 10_000, blockMs: 5_000 }, () => now);
  f.failed("10.0.0.1");
  f.failed("10.0.0.1");
  assert.equal(f.blockedFor("10.0.0.1"), 0);
  f.failed("10.0.0.1");
  assert.equal(f.blockedFor("10.0.0.1"), 5);
  assert.equal(f.blockedFor("::ffff:10.0.0.1"), 5, "the same address seen by a dual-stack listener");
  assert.equal(f.blockedFor("10.0.0.2"), 0);
  now += 4_001;
  assert.equal(f.blockedFor("10.0.0.1"), 1, "Retry-After rounds up");
  now += 1_000;
  assert.equal(f.blockedFor("10.0.0.1"), 0, "the block ends by itself");
  // two failures, then the window passes: they are forgotten
  f.failed("10.0.0.2");
  f.failed("10.0.0.2");
  now += 10_001;
  f.failed("10.0.0.2");
  f.failed("10.0.0.2");
  assert.equal(f.blockedFor("10.0.0.2"), 0);
});

test("AuthFailures: at most maxAddresses are remembered", () => {
  let now = 0;
  const f = new AuthFailures({ maxFailures: 1, windowMs: 60_000, blockMs: 60_000, maxAddresses: 100 }, () => now);
  for (let i = 0; i < 1000; i++) f.failed(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(f.blockedFor("10.0.3.231"), 60, "the newest is remembered");
  assert.equal(f.blockedFor("10.0.0.0"), 0, "the oldest were forgotten");
});

test("headInfo: the top-level id from the start of a message", () => {
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"text":"xxxx'), { id: 12, response: false });
  assert.deepEqual(headInfo('{ "id" : "abc\\"d\\u0041", "method":"x", "params": {"a'), { id: 'abc"dA', response: false });
  assert.deepEqual(headInfo('{"method":"m","params":{"id":5,"nested":[1,{"id":6}]},"id":7,"x":"'), { id: 7, response: false });
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","params":{"id":5,"text":"xxxxx'), { response: false }, "an id inside params is not it");
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","id":12'), { response: false }, "a number cut by the end might go on");
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","id":"ab'), { response: false });
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","id":null,"method":"m"'), { response: false });
  assert.deepEqual(headInfo('{"jsonrpc":"2.0","id":3,"result":{"content":"xxx'), { id: 3, response: true });
  assert.deepEqual(headInfo("[1,2,3"), { response: false });
  assert.deepEqual(headInfo("xxxxxxxx"), { response: false });
  assert.deepEqual(headInfo(""), { response: false });
});

test("oversizeAnswer: -32600 with the id, null without one, nothing for a response", () => {
  const limit = 100;
  assert.deepEqual(JSON.parse(oversizeAnswer(500, '{"id":"r1","method":"m","params":"xx', limit)!), {
    jsonrpc: "2.0",
    id: "r1",
    error: { code: -32600, message: "message of 500 bytes is over the 100-byte limit; discarded" },
  });
  assert.equal(JSON.parse(oversizeAnswer(500, '{"method":"m","params":"xx', limit)!).id, null);
  assert.equal(oversizeAnswer(500, '{"jsonrpc":"2.0","id":1,"result":"xx', limit), undefined);
});

test("LineReader: an oversize line's first bytes come with its length; the next line is read", () => {
  const got: Array<[string, number, string?]> = [];
  const f = new LineReader({ line: (text) => got.push(["line", text.length]), oversize: (bytes, head) => got.push(["oversize", bytes, head]) }, 10_000);
  const big = `{"id":42,"params":"${"x".repeat(20_000)}"}`;
  f.push(big.slice(0, 5000));
  f.push(big.slice(5000, 15_000));
  f.push(big.slice(15_000) + "\n" + '{"id":1}\n');
  assert.deepEqual(got.map(([k, n]) => [k, n]), [["oversize", big.length], ["line", 8]]);
  assert.equal(got[0][2], big.slice(0, OVERSIZE_HEAD_BYTES));
  // a line found oversize only at its end (one chunk) has its head too
  got.length = 0;
  const g = new LineReader({ line: () => {}, oversize: (bytes, head) => got.push(["oversize", bytes, head]) }, 10);
  g.push('{"id":"abc","x":1}\n');
  assert.deepEqual(got, [["oversize", 18, '{"id":"abc","x":1}']]);
});

test("checkTokenStrength: at least 16 characters of [A-Za-z0-9_-], named by source", () => {
  assert.equal(MIN_TOKEN_LENGTH, 16);
  assert.equal(checkTokenStrength(generateToken(), "--token"), undefined);
  assert.equal(checkTokenStrength("a".repeat(16), "--token"), undefined);
  assert.match(checkTokenStrength("a".repeat(15), "PITH_TOKEN")!, /^the token from PITH_TOKEN is 15 characters; at least 16 are needed/);
  assert.match(checkTokenStrength("", "the token file /x/token")!, /^the token from the token file \/x\/token must be non-empty/);
  assert.match(checkTokenStrength("has a space in it, long enough", "--token")!, /A-Z a-z 0-9 _ -/);
});
