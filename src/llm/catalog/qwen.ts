// Qwen models. Checked 2026-11-26. Windows of the open weights as Ollama's /api/show reports them
// (public samples: qwen2.5 and qwen2.5-coder `qwen2.context_length` 32768, qwen3:4b/8b
// `qwen3.context_length` 40960, qwen3-coder:30b and qwen3:30b `qwen3moe.context_length` 262144);
// output limits from Qwen's model cards via models.dev (anomalyco/models.dev at f3fc692, July 2026,
// providers/alibaba), which also gives Alibaba Cloud's list prices where Alibaba sells the model.
// Run locally a model costs nothing: the price applies to Alibaba's API. Qwen3 (dense) thinks on
// request (Ollama's think), Qwen3-Coder never does.
import { usd, type CatalogEntry } from "./types.js";

const qwen = (id: string, name: string, contextWindow: number, maxOutputTokens: number, pricing: CatalogEntry["pricing"], thinking: CatalogEntry["thinking"], aliases: string[]): CatalogEntry => ({
  id,
  name,
  family: "qwen",
  aliases,
  contextWindow,
  maxOutputTokens,
  pricing,
  thinking,
  openWeights: true,
});

const sizes = (name: string, list: string[]) => list.map((s) => `${name}:${s}`);

export const QWEN_MODELS: readonly CatalogEntry[] = [
  qwen("qwen2.5", "Qwen2.5", 32_768, 8_192, undefined, "none", [...sizes("qwen2.5", ["0.5b", "1.5b", "3b", "7b", "14b", "32b", "72b"]), "qwen/qwen-2.5-72b-instruct", "qwen/qwen-2.5-7b-instruct"]),
  qwen("qwen2.5-coder", "Qwen2.5-Coder", 32_768, 8_192, undefined, "none", [...sizes("qwen2.5-coder", ["0.5b", "1.5b", "3b", "7b", "14b", "32b"]), "qwen/qwen-2.5-coder-32b-instruct"]),
  qwen("qwen3", "Qwen3 (dense)", 40_960, 32_768, undefined, "adaptive", [...sizes("qwen3", ["0.6b", "1.7b", "4b", "8b", "14b", "32b"]), "qwen/qwen3-8b", "qwen/qwen3-14b", "qwen/qwen3-32b"]),
  // the first Qwen3 MoE (April 2025) had Qwen3's 40,960; its July 2025 update (2507) has 262,144.
  // Ollama's qwen3:30b reports 262,144; any other spelling falls to the smaller, safer figure
  qwen("qwen3-30b-a3b", "Qwen3 30B-A3B", 40_960, 32_768, undefined, "adaptive", ["qwen/qwen3-30b-a3b"]),
  qwen("qwen3-30b-a3b-2507", "Qwen3 30B-A3B 2507", 262_144, 32_768, undefined, "adaptive", ["qwen3:30b", "qwen/qwen3-30b-a3b-instruct-2507", "qwen/qwen3-30b-a3b-thinking-2507", "Qwen/Qwen3-30B-A3B-Instruct-2507"]),
  qwen("qwen3-235b-a22b-2507", "Qwen3 235B-A22B 2507", 262_144, 32_768, undefined, "adaptive", ["qwen/qwen3-235b-a22b-2507", "qwen/qwen3-235b-a22b-thinking-2507"]),
  // Ollama's qwen3-coder (its :latest) is the 30B; OpenRouter's qwen/qwen3-coder is the 480B
  qwen("qwen3-coder-30b-a3b", "Qwen3-Coder 30B-A3B", 262_144, 65_536, usd(0.45, 2.25), "none", ["qwen3-coder", "qwen3-coder:30b", "qwen3-coder:30b-a3b", "qwen/qwen3-coder-30b-a3b-instruct", "Qwen/Qwen3-Coder-30B-A3B-Instruct"]),
  qwen("qwen3-coder-480b-a35b", "Qwen3-Coder 480B-A35B", 262_144, 65_536, usd(1.5, 7.5), "none", ["qwen3-coder:480b", "qwen/qwen3-coder", "Qwen/Qwen3-Coder-480B-A35B-Instruct"]),
  qwen("qwen3-coder-plus", "Qwen3-Coder Plus (API)", 1_048_576, 65_536, usd(1, 5), "none", ["qwen/qwen3-coder-plus"]),
  qwen("qwen3-coder-next", "Qwen3-Coder-Next", 262_144, 65_536, undefined, "none", ["qwen/qwen3-coder-next"]),
];
