/** What Legion knows about each provider name a participant's `model.provider` may use. */
export interface ProviderPreset {
  /** Which wire protocol (and SDK) it speaks. */
  protocol: 'anthropic' | 'openai';
  /** Environment variable holding the API key. */
  apiKeyEnv?: string;
  /** Environment variable the SDK reads for its base URL. */
  baseURLEnv?: string;
  defaultBaseURL?: string;
  /** Where the SDK sends requests when no base URL is given: the endpoint its key is meant for. */
  sdkBaseURL?: string;
  /** Whether a key is required (local servers need none). */
  requiresKey: boolean;
  /** OpenAI's own API wants `max_completion_tokens`; compatible servers know `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

export const PROVIDER_PRESETS: Record<string, ProviderPreset> = {
  anthropic: {
    protocol: 'anthropic',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    baseURLEnv: 'ANTHROPIC_BASE_URL',
    sdkBaseURL: 'https://api.anthropic.com',
    requiresKey: true,
  },
  openai: {
    protocol: 'openai',
    apiKeyEnv: 'OPENAI_API_KEY',
    baseURLEnv: 'OPENAI_BASE_URL',
    sdkBaseURL: 'https://api.openai.com/v1',
    requiresKey: true,
    maxTokensField: 'max_completion_tokens',
  },
  'openai-compatible': { protocol: 'openai', apiKeyEnv: 'OPENAI_COMPATIBLE_API_KEY', requiresKey: false, maxTokensField: 'max_tokens' },
  openrouter: {
    protocol: 'openai',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    defaultBaseURL: 'https://openrouter.ai/api/v1',
    requiresKey: true,
    maxTokensField: 'max_tokens',
  },
  ollama: {
    protocol: 'openai',
    apiKeyEnv: 'OLLAMA_API_KEY',
    defaultBaseURL: 'http://127.0.0.1:11434/v1',
    requiresKey: false,
    maxTokensField: 'max_tokens',
  },
  vllm: {
    protocol: 'openai',
    apiKeyEnv: 'VLLM_API_KEY',
    defaultBaseURL: 'http://127.0.0.1:8000/v1',
    requiresKey: false,
    maxTokensField: 'max_tokens',
  },
  lmstudio: {
    protocol: 'openai',
    apiKeyEnv: 'LMSTUDIO_API_KEY',
    defaultBaseURL: 'http://127.0.0.1:1234/v1',
    requiresKey: false,
    maxTokensField: 'max_tokens',
  },
  llamacpp: {
    protocol: 'openai',
    apiKeyEnv: 'LLAMACPP_API_KEY',
    defaultBaseURL: 'http://127.0.0.1:8080/v1',
    requiresKey: false,
    maxTokensField: 'max_tokens',
  },
};
