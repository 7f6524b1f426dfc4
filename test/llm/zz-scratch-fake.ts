import Anthropic from "@anthropic-ai/sdk";
import { startFakeAnthropic, textReply, streamError, cutConnection, hang, overloaded, promptTooLong } from "../support/fake-anthropic.js";
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const server = await startFakeAnthropic();
const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0, logger: silent });
const params = { model: "claude-opus-4-5", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
const show = (e: any) => ({ cls: e?.constructor?.name, name: e?.name, msg: e?.message, status: e?.status, type: e?.type, apiMessage: e?.apiMessage, error: e?.error, requestID: e?.requestID, headers: e?.headers ? Object.fromEntries(e.headers) : e?.headers, cause: e?.cause && { name: e.cause.name, msg: e.cause.message, code: e.cause.code, cause: e.cause.cause && { name: e.cause.cause.name, msg: e.cause.cause.message, code: e.cause.cause.code } }, isAPIError: e instanceof Anthropic.APIError, isAnthropicError: e instanceof Anthropic.AnthropicError });
server.enqueue(textReply("hello world, a streamed answer"));
console.log(JSON.stringify(await client.messages.stream(params).finalMessage()));
for (const sc of [overloaded({ retryAfter: 3 }), promptTooLong(), streamError(), cutConnection(), cutConnection({ beforeHeaders: true })]) {
  server.enqueue(sc);
  try { await client.messages.stream(params).finalMessage(); console.log("no error?!"); } catch (e) { console.log(sc.kind, JSON.stringify(show(e), null, 1)); }
}
server.enqueue(hang());
const ac = new AbortController();
setTimeout(() => ac.abort(), 100);
try { await client.messages.stream(params, { signal: ac.signal }).finalMessage(); } catch (e) { console.log("hang", JSON.stringify(show(e))); }
console.log(await server.whenEnded(server.requests.length - 1));
server.enqueue(hang({ beforeHeaders: true }));
try { await client.messages.stream(params, { timeout: 200 }).finalMessage(); } catch (e) { console.log("hang-timeout", JSON.stringify(show(e))); }
server.enqueue(hang());
try { await client.messages.stream(params, { timeout: 200 }).finalMessage(); } catch (e) { console.log("hang-after-headers-timeout", JSON.stringify(show(e))); }
await server.close();
console.log("closed");
