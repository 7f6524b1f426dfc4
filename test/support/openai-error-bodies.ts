// Each server's context-overflow answer, as a fake-openai scenario for any sizes: the shapes and
// wording of the real bodies (the bodies themselves, with where each was found, are in the table
// of test/llm/openai-errors.test.ts). For tests that need a server to refuse a long prompt the way
// that server does (fake-openai's setContextLimit, the daemon's overflow -> compaction -> retry).
import type { HttpErrorScenario } from "./fake-openai.js";

export type OverflowServer =
  | "openai"
  | "openai-responses"
  | "vllm"
  | "vllm-max-tokens"
  | "llamacpp"
  | "openrouter"
  | "deepseek"
  | "groq"
  | "gemini"
  | "lmstudio"
  | "mistral";

export const OVERFLOW_SERVERS: readonly OverflowServer[] = ["openai", "openai-responses", "vllm", "vllm-max-tokens", "llamacpp", "openrouter", "deepseek", "groq", "gemini", "lmstudio", "mistral"];

const error = (status: number, body: unknown): HttpErrorScenario => ({ kind: "http_error", status, body });

/** `tokens`: the prompt (plus the output limit where the server counts it); `output`: the request's output limit */
export function overflowError(server: OverflowServer, tokens: number, maximum: number, output = 0): HttpErrorScenario {
  switch (server) {
    case "openai":
      return error(400, { error: { message: `This model's maximum context length is ${maximum} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } });
    case "openai-responses":
      return error(400, { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" } });
    case "vllm":
      return error(400, { object: "error", message: `This model's maximum context length is ${maximum} tokens. However, you requested ${tokens} tokens (${tokens - output} in the messages, ${output} in the completion). Please reduce the length of the messages or completion. None`, type: "BadRequestError", param: null, code: 400 });
    case "vllm-max-tokens":
      return error(400, { error: { message: `'max_tokens' or 'max_completion_tokens' is too large: ${output}. This model's maximum context length is ${maximum} tokens and your request has ${tokens - output} input tokens (${output} > ${maximum} - ${tokens - output}). None`, type: "BadRequestError", param: null, code: 400 } });
    case "llamacpp":
      return error(400, { error: { code: 400, message: `request (${tokens} tokens) exceeds the available context size (${maximum} tokens), try increasing it`, type: "exceed_context_size_error", n_prompt_tokens: tokens, n_ctx: maximum } });
    case "openrouter":
      return error(400, { error: { message: `This endpoint's maximum context length is ${maximum} tokens. However, you requested about ${tokens} tokens (${tokens} of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`, code: 400, metadata: { provider_name: null } } });
    case "deepseek":
      return error(400, { error: { message: `This model's maximum context length is ${maximum} tokens. However, you requested ${tokens} tokens (${tokens - output} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`, type: "invalid_request_error", param: null, code: "invalid_request_error" } });
    case "groq":
      return error(400, { error: { message: "Please reduce the length of the messages or completion.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } });
    case "gemini":
      return error(400, [{ error: { code: 400, message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${maximum}).`, status: "INVALID_ARGUMENT" } }]);
    case "lmstudio":
      return error(400, { error: `The number of tokens to keep from the initial prompt is greater than the context length (n_keep: ${tokens}>= n_ctx: ${maximum}). Try to load the model with a larger context length, or provide a shorter input.` });
    case "mistral":
      return error(400, { object: "error", message: `Prompt contains ${tokens} tokens, too large for model with ${maximum} maximum context length`, type: "invalid_request_error", param: null, code: null });
  }
}

/** whether the server's overflow body states the sizes (so a test can expect them) */
export function statesSizes(server: OverflowServer): boolean {
  return server !== "openai-responses" && server !== "groq";
}
