import type { LLMProvider } from './llm-provider.js';
import { ScriptedProvider } from './scripted/ScriptedProvider.js';
import { SdkProvider } from './SdkProvider.js';

/**
 * Whether a model call's signal can be handed to this provider and used again for a later call:
 * only Legion's own providers, whose every use of it is a listener getEventListeners sees (the SDK
 * is given a controller of its own per attempt, stream-retry.ts). Any other provider (one a
 * program registered) may tie it to work that outlives the call through AbortSignal.any, which
 * leaves nothing to see, and a later call's abort would reach that work.
 */
export function reusesCallSignals(provider: LLMProvider): boolean {
  return provider instanceof SdkProvider || provider instanceof ScriptedProvider;
}
