// The providers bench's part for the two OpenAI providers: Chat Completions and the Responses
// API, against a fake OpenAI-compatible server in its own process (openai-fake-child.ts).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { OpenAICompletionsProvider } from "../../src/llm/openai-completions.js";
import { OpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import type { ModelInfo } from "../../src/llm/types.js";
import type { BenchServer, ProviderBenchCase, Shape } from "./harness.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHILD = fileURLToPath(new URL("./openai-fake-child.ts", import.meta.url));
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const model: ModelInfo = { id: "bench-model", provider: "bench", contextWindow: 1_000_000, maxOutputTokens: 100_000, pricing: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, thinking: "none" };

async function startServer(shape: Shape, deltas: number): Promise<BenchServer> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, shape, String(deltas)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", (d) => resolve(String(d).trim()));
  });
  return { baseURL, stop: () => new Promise((r) => (child.once("exit", () => r()), child.kill("SIGTERM"))) };
}

const rawClient = (server: BenchServer) => new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent });

export const chatCompletionsCase: ProviderBenchCase = {
  provider: "openai-completions",
  shapes: ["text", "tools"],
  model,
  startServer,
  async raw(server, shape) {
    const stream = await rawClient(server).chat.completions.create({ model: model.id, messages: [{ role: "user", content: "go" }], stream: true, stream_options: { include_usage: true } });
    let n = 0;
    let acc = "";
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      const piece = shape === "text" ? delta?.content : delta?.tool_calls?.[0]?.function?.arguments;
      if (piece) {
        acc += piece;
        n++;
      }
    }
    return acc.length > 0 ? n : -1;
  },
  create: (server) => new OpenAICompletionsProvider({ name: "bench", apiKey: "k", baseURL: server.baseURL }),
};

export const responsesCase: ProviderBenchCase = {
  provider: "openai-responses",
  shapes: ["text", "tools"],
  model,
  startServer,
  async raw(server) {
    const stream = await rawClient(server).responses.create({ model: model.id, input: "go", stream: true, store: false });
    let n = 0;
    let acc = "";
    for await (const ev of stream) {
      if (ev.type === "response.output_text.delta" || ev.type === "response.function_call_arguments.delta") {
        acc += ev.delta;
        n++;
      }
    }
    return acc.length > 0 ? n : -1;
  },
  create: (server) => new OpenAIResponsesProvider({ name: "bench", apiKey: "k", baseURL: server.baseURL }),
};
