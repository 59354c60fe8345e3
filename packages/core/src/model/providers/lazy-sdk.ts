import { ProviderError } from '../../kernel/index.js';

const loaded = new Map<string, Promise<unknown>>();

/**
 * Imports an optional SDK the first time a provider needs it, so that starting
 * Legion never pays for SDKs it does not use. A missing package says how to install it.
 */
export function loadSdk<Module>(
  specifier: string,
  context: { provider: string; model: string },
  load: () => Promise<Module>,
): Promise<Module> {
  let promise = loaded.get(specifier) as Promise<Module> | undefined;
  if (!promise) {
    promise = load().catch((error: unknown) => {
      loaded.delete(specifier);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
        throw new ProviderError(
          context.provider,
          context.model,
          `the "${specifier}" package is not installed`,
          `Install it: npm install ${specifier}`,
          {
            code: 'provider_sdk_missing',
            cause: error,
          },
        );
      }
      throw error;
    });
    loaded.set(specifier, promise);
  }
  return promise;
}
