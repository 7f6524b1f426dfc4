// Model-listing bodies as real servers send them, each with where it comes from (trimmed of
// fields discovery does not read where marked). Checked 2026-11-26.

/** vLLM GET /v1/models: the vLLM docs' LoRA example and KAITO's phi-3.5 sample (owned_by "vllm", max_model_len). */
export const VLLM_MODELS = {
  object: "list",
  data: [
    {
      id: "Qwen/Qwen2.5-Coder-32B-Instruct",
      object: "model",
      created: 1733370094,
      owned_by: "vllm",
      root: "/models/Qwen2.5-Coder-32B-Instruct",
      parent: null,
      max_model_len: 32768,
      permission: [{ id: "modelperm-2cebe3d878c54948b8acbb744eb744f8", object: "model_permission", created: 1733370094, allow_create_engine: false, allow_sampling: true, allow_logprobs: true, allow_search_indices: false, allow_view: true, allow_fine_tuning: false, organization: "*", group: null, is_blocking: false }],
    },
    { id: "sql-lora", object: "model", created: 1733370094, owned_by: "vllm", root: "/adapters/sql-lora", parent: "Qwen/Qwen2.5-Coder-32B-Instruct", max_model_len: 32768, permission: [] },
  ],
};

/**
 * OpenRouter GET /api/v1/models: the entry shape of OpenRouter's API reference (prices in USD per
 * token, as strings); the figures of these two entries are those pi-ai 0.58.4's catalog (generated
 * from this endpoint) records. Two entries of several hundred; descriptions shortened.
 */
export const OPENROUTER_MODELS = {
  data: [
    {
      id: "qwen/qwen3-coder",
      canonical_slug: "qwen/qwen3-coder-480b-a35b-07-25",
      hugging_face_id: "Qwen/Qwen3-Coder-480B-A35B-Instruct",
      name: "Qwen: Qwen3 Coder 480B A35B",
      created: 1753230546,
      description: "Qwen3-Coder-480B-A35B-Instruct is a Mixture-of-Experts (MoE) code generation model…",
      context_length: 262144,
      architecture: { modality: "text->text", input_modalities: ["text"], output_modalities: ["text"], tokenizer: "Qwen3", instruct_type: null },
      pricing: { prompt: "0.00000022", completion: "0.000001", request: "0", image: "0", web_search: "0", internal_reasoning: "0", input_cache_read: "0.000000022" },
      top_provider: { context_length: 262144, max_completion_tokens: 65536, is_moderated: false },
      per_request_limits: null,
      supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "top_p", "response_format"],
    },
    {
      id: "openai/gpt-4o",
      canonical_slug: "openai/gpt-4o",
      name: "OpenAI: GPT-4o",
      created: 1715367049,
      context_length: 128000,
      architecture: { modality: "text+image->text", input_modalities: ["text", "image", "file"], output_modalities: ["text"], tokenizer: "GPT", instruct_type: null },
      pricing: { prompt: "0.0000025", completion: "0.00001", request: "0", image: "0.003613", web_search: "0", internal_reasoning: "0", input_cache_read: "0.00000125" },
      top_provider: { context_length: 128000, max_completion_tokens: 16384, is_moderated: true },
      per_request_limits: null,
      supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "response_format", "structured_outputs"],
    },
  ],
};

/** LM Studio GET /v1/models (OpenAI-compatible): ids only. Seen in many public setups ("owned_by": "organization_owner"). */
export const LMSTUDIO_OPENAI_MODELS = {
  data: [
    { id: "google/gemma-4-26b-a4b", object: "model", owned_by: "organization_owner" },
    { id: "deepseek-r1", object: "model", owned_by: "organization_owner" },
    { id: "text-embedding-nomic-embed-text-v1.5", object: "model", owned_by: "organization_owner" },
  ],
  object: "list",
};

/** LM Studio GET /api/v1/models (0.4+): lmstudio-ai/docs 1_developer/2_rest/list.md (Apr 2026), variants trimmed. */
export const LMSTUDIO_V1_MODELS = {
  models: [
    {
      type: "llm",
      publisher: "google",
      key: "google/gemma-4-26b-a4b",
      display_name: "Gemma 4 26B A4B",
      architecture: "gemma4",
      quantization: { name: "Q4_K_M", bits_per_weight: 4 },
      size_bytes: 17990911801,
      params_string: "26B-A4B",
      loaded_instances: [{ id: "google/gemma-4-26b-a4b", config: { context_length: 4096, eval_batch_size: 512, parallel: 4, flash_attention: true, num_experts: 8, offload_kv_cache_to_gpu: true } }],
      max_context_length: 262144,
      format: "gguf",
      capabilities: { vision: true, trained_for_tool_use: true, reasoning: { allowed_options: ["off", "on"], default: "on" } },
      description: null,
    },
    {
      type: "llm",
      publisher: "deepseek",
      key: "deepseek-r1",
      display_name: "DeepSeek R1",
      architecture: "deepseek",
      quantization: { name: "Q4_K_M", bits_per_weight: 4 },
      size_bytes: 40492610355,
      params_string: "671B",
      loaded_instances: [],
      max_context_length: 131072,
      format: "gguf",
      capabilities: { vision: false, trained_for_tool_use: true, reasoning: { allowed_options: ["on"], default: "on" } },
      description: null,
    },
    { type: "embedding", publisher: "gaianet", key: "text-embedding-nomic-embed-text-v1.5", display_name: "Nomic Embed Text v1.5", quantization: { name: "F16", bits_per_weight: 16 }, size_bytes: 274290560, params_string: null, loaded_instances: [], max_context_length: 2048, format: "gguf" },
  ],
};

/** LM Studio GET /api/v0/models (0.3.6+): lmstudio-ai/docs endpoints.mdx; loaded_context_length appears on loaded models only. */
export const LMSTUDIO_V0_MODELS = {
  object: "list",
  data: [
    { id: "qwen2.5-7b-instruct", object: "model", type: "llm", publisher: "lmstudio-community", arch: "qwen2", compatibility_type: "gguf", quantization: "Q4_K_M", state: "loaded", max_context_length: 32768, loaded_context_length: 8192 },
    { id: "meta-llama-3.1-8b-instruct", object: "model", type: "llm", publisher: "lmstudio-community", arch: "llama", compatibility_type: "gguf", quantization: "Q4_K_M", state: "not-loaded", max_context_length: 131072 },
    { id: "text-embedding-nomic-embed-text-v1.5", object: "model", type: "embeddings", publisher: "nomic-ai", arch: "nomic-bert", compatibility_type: "gguf", quantization: "Q4_0", state: "not-loaded", max_context_length: 2048 },
  ],
};

/** llama-server GET /v1/models: ggml-org/llama.cpp tools/server/README.md (2026). */
export const LLAMACPP_MODELS = {
  object: "list",
  data: [
    {
      id: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
      object: "model",
      architecture: { input_modalities: ["text"], output_modalities: ["text"] },
      created: 1735142223,
      owned_by: "llamacpp",
      meta: { vocab_type: 2, n_vocab: 128256, n_ctx_train: 131072, n_embd: 4096, n_params: 8030261312, size: 4912898304 },
    },
  ],
};

/** llama-server GET /props: the same README (params trimmed to a few). */
export const LLAMACPP_PROPS = {
  default_generation_settings: { id: 0, id_task: -1, n_ctx: 16384, speculative: false, is_processing: false, params: { n_predict: -1, seed: 4294967295, temperature: 0.8, top_k: 40, top_p: 0.95, max_tokens: -1, n_keep: 0 }, prompt: "", next_token: { has_next_token: true, has_new_line: false, n_remain: -1, n_decoded: 0, stopping_word: "" } },
  total_slots: 1,
  model_path: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
  chat_template: "...",
  chat_template_caps: {},
  modalities: { vision: false },
  build_info: "b7500-1a2b3c4d",
  is_sleeping: false,
};

/** llama-server in router mode, GET /v1/models: the README's "Using multiple models" (status per model). */
export const LLAMACPP_ROUTER_MODELS = {
  object: "list",
  data: [
    { id: "ggml-org/gemma-3-4b-it-GGUF:Q4_K_M", object: "model", owned_by: "llamacpp", path: "/cache/ggml-org_gemma-3-4b-it-GGUF_gemma-3-4b-it-Q4_K_M.gguf", status: { value: "loaded", args: ["llama-server", "-ctx", "4096"] }, architecture: { input_modalities: ["text", "image"], output_modalities: ["text"] }, meta: { n_ctx_train: 131072 } },
    { id: "Qwen3-8B-Q4_K_M", object: "model", owned_by: "llamacpp", status: { value: "unloaded" }, architecture: { input_modalities: ["text"], output_modalities: ["text"] } },
  ],
};

/** Ollama GET /api/tags: ollama/ollama docs/api.md "List Local Models". */
export const OLLAMA_TAGS = {
  models: [
    {
      name: "deepseek-r1:latest",
      model: "deepseek-r1:latest",
      modified_at: "2025-05-10T08:06:48.639712648-07:00",
      size: 4683075271,
      digest: "0a8c266910232fd3291e71e5ba1e058cc5af9d411192cf88b6d30e92b6e73163",
      details: { parent_model: "", format: "gguf", family: "qwen2", families: ["qwen2"], parameter_size: "7.6B", quantization_level: "Q4_K_M" },
    },
    {
      name: "llama3.2:latest",
      model: "llama3.2:latest",
      modified_at: "2025-05-04T17:37:44.706015396-07:00",
      size: 2019393189,
      digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
      details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
    },
  ],
};

/** Ollama POST /api/show: ollama/ollama docs/api.md "Show Model Information" (llava, tokenizer arrays omitted). */
export const OLLAMA_SHOW_LLAVA = {
  modelfile: '# Modelfile generated by "ollama show"\nFROM /Users/matt/.ollama/models/blobs/sha256:200765e1283640ffbd013184bf496e261032fa75b99498a9613be4e94d63ad52\nPARAMETER num_ctx 4096\nPARAMETER stop "</s>"',
  parameters: 'num_keep                       24\nstop                           "<|start_header_id|>"\nstop                           "<|end_header_id|>"\nstop                           "<|eot_id|>"',
  template: "{{ .Prompt }}",
  details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "8.0B", quantization_level: "Q4_0" },
  model_info: {
    "general.architecture": "llama",
    "general.file_type": 2,
    "general.parameter_count": 8030261248,
    "general.quantization_version": 2,
    "llama.attention.head_count": 32,
    "llama.attention.head_count_kv": 8,
    "llama.block_count": 32,
    "llama.context_length": 8192,
    "llama.embedding_length": 4096,
    "llama.rope.freq_base": 500000,
    "tokenizer.ggml.model": "gpt2",
  },
  capabilities: ["completion", "vision"],
};

/** Ollama POST /api/show of a thinking MoE model with a num_ctx PARAMETER (qwen3moe keys as /api/show reports them for qwen3:30b). */
export const OLLAMA_SHOW_QWEN3_MOE = {
  parameters: "num_ctx                        32768\ntemperature                    0.6\ntop_p                          0.95",
  model_info: { "general.architecture": "qwen3moe", "qwen3moe.block_count": 48, "qwen3moe.context_length": 262144, "qwen3moe.embedding_length": 2048, "qwen3moe.rope.scaling.original_context_length": 32768 },
  capabilities: ["completion", "tools", "thinking"],
};
