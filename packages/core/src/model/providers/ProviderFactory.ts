import type { ModelConfig, ResolvedConfig } from '../../team/index.js';
import { ProviderError } from '../../kernel/index.js';
import type { LLMProvider } from './llm-provider.js';

export type ProviderSettings = ResolvedConfig['providers'][string];

/** Builds a provider for a model config; may load its SDK lazily. */
export type ProviderConstructor = (model: ModelConfig, settings: ProviderSettings) => LLMProvider;

/**
 * Chooses the provider for a participant from its model config. Providers are
 * registered by name; a participant can also be given a provider instance
 * directly (tests, demos, programmatic use).
 */
export class ProviderFactory {
  private readonly constructors = new Map<string, ProviderConstructor>();
  private readonly perParticipant = new Map<string, LLMProvider>();
  private readonly cache = new Map<string, LLMProvider>();

  constructor(private settings: ResolvedConfig['providers'] = {}) {}

  /** Providers' settings read again (an edited config): providers made with the old ones are dropped, the next call makes new ones. */
  useSettings(settings: ResolvedConfig['providers']): void {
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    this.settings = settings;
    this.cache.clear();
  }

  register(name: string, create: ProviderConstructor): () => void {
    this.constructors.set(name, create);
    return () => {
      if (this.constructors.get(name) === create) this.constructors.delete(name);
    };
  }

  /** Answers every model call of one participant with this provider. */
  useFor(participantId: string, provider: LLMProvider): () => void {
    this.perParticipant.set(participantId, provider);
    return () => {
      if (this.perParticipant.get(participantId) === provider) this.perParticipant.delete(participantId);
    };
  }

  forParticipant(participantId: string, model: ModelConfig): LLMProvider {
    return this.perParticipant.get(participantId) ?? this.forModel(model);
  }

  /** The provider for a model config, whoever uses it (a summarizer model, say). */
  forModel(model: ModelConfig): LLMProvider {
    const key = JSON.stringify(model);
    let provider = this.cache.get(key);
    if (!provider) {
      const create = this.constructors.get(model.provider);
      if (!create) {
        const known = [...this.constructors.keys()];
        throw new ProviderError(
          model.provider,
          model.model,
          `no provider named "${model.provider}" is available`,
          known.length > 0 ? `Use one of: ${known.join(', ')}.` : 'Register one with providers.register(name, create).',
          { code: 'provider_unknown' },
        );
      }
      provider = create(model, this.settings[model.provider] ?? {});
      this.cache.set(key, provider);
    }
    return provider;
  }
}
