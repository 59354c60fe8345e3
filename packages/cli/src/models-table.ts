import type { CatalogueModel, CatalogueProvider } from '@legion-collective/core/management';

/** `200k window · $3 / $15 per Mtok`: what a person weighs when choosing a model. */
export function describeModel(model: CatalogueModel): string {
  return `${formatWindow(model.window)} window · ${formatPrice(model)}`;
}

/** 200k, 1M, 1,047,576 → 1.05M. */
export function formatWindow(tokens: number): string {
  if (tokens >= 1_000_000) return `${Number((tokens / 1_000_000).toFixed(2))}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}k`;
  return String(tokens);
}

/** Input and output per million tokens; free for a local model; `price unknown` when nobody knows. */
export function formatPrice(model: Pick<CatalogueModel, 'price' | 'priceSource'>): string {
  if (model.priceSource === 'local') return 'free (local)';
  if (!model.price) return 'price unknown';
  return `$${model.price.input} / $${model.price.output} per Mtok`;
}

/** Where a provider's key comes from, named without its value. */
export function describeKey(provider: CatalogueProvider): string {
  switch (provider.key.from) {
    case 'environment':
      return `key from ${provider.key.variable}`;
    case 'global-config':
      return `key in the global config (${provider.key.field})`;
    case 'none-needed':
      return 'no key needed';
    case 'missing':
      return 'no key';
  }
}
