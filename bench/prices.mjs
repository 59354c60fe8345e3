// What prices and budgets cost: loading the list-price dataset on the first priced call (once
// per process, never at start-up), a quote after that (cached per model), and a budget check
// before a model call in a session whose ledger holds 2,000 calls (the first check reads it
// all; later ones read only what was appended since).
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { costOf, FileSessionBackend, PriceBook } from '../packages/core/dist/index.js';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const rssBefore = process.memoryUsage().rss;
const book = new PriceBook(() => ({}));
let started = performance.now();
await book.quote({ provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' });
const firstQuoteMs = performance.now() - started;
const rssAfterLoad = process.memoryUsage().rss;

const QUOTES = 20_000;
const models = ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5', 'claude-opus-4-1'];
started = performance.now();
for (let index = 0; index < QUOTES; index++)
  costOf({ inputTokens: 1000 + index, outputTokens: 100 }, (await book.quote({ provider: 'anthropic', model: models[index % 3] })).price);
const quoteUs = ((performance.now() - started) / QUOTES) * 1000;

const root = tempDir('prices');
mkdirSync(join(root, '.legion'), { recursive: true });
const backend = new FileSessionBackend({ root });
const { id } = await backend.sessions.create();
const record = (index) => ({
  version: 1,
  at: new Date().toISOString(),
  participantId: 'dev',
  conversationId: 'user__dev',
  chain: ['user'],
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
  usage: { inputTokens: 1000 + index, outputTokens: 50 },
  costUsd: 0.001,
});
for (let index = 0; index < 2000; index++) await backend.usage.append(id, record(index));
started = performance.now();
let { cursor } = await backend.usage.readSince(id);
const seedMs = performance.now() - started;
const checks = [];
for (let index = 0; index < 500; index++) {
  await backend.usage.append(id, record(index));
  const at = performance.now();
  ({ cursor } = await backend.usage.readSince(id, cursor));
  checks.push(performance.now() - at);
}
backend.close?.();
removeDir(root);

console.log(`first priced call (loads the dataset): ${ms(firstQuoteMs)}, RSS +${Math.round((rssAfterLoad - rssBefore) / 1e6)} MB`);
console.log(`quote + cost after that: ${round(quoteUs, 2)} µs`);
console.log(`budget check, 2,000-call ledger: first (seeds the total) ${ms(seedMs)}, then median ${ms(median(checks))} per check`);
printJson('prices', {
  firstQuoteMs: round(firstQuoteMs, 1),
  datasetRssMb: Math.round((rssAfterLoad - rssBefore) / 1e6),
  quoteUs: round(quoteUs, 2),
  budgetSeedMs: round(seedMs, 2),
  budgetCheckMs: round(median(checks), 4),
});
