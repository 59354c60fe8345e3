import { AnthropicProvider } from './anthropic/AnthropicProvider.js';
import { OpenAIProvider } from './openai/OpenAIProvider.js';
import { PROVIDER_PRESETS } from './provider-presets.js';
import type { ProviderFactory } from './ProviderFactory.js';

/** Registers every built-in provider name; SDKs still load only when a model is first called. */
export function registerBuiltinProviders(factory: ProviderFactory, env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, preset] of Object.entries(PROVIDER_PRESETS)) {
    factory.register(name, (model, settings) =>
      preset.protocol === 'anthropic' ? new AnthropicProvider(model, settings, env) : new OpenAIProvider(model, settings, env),
    );
  }
}
