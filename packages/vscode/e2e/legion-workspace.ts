import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Gives a participant of a test workspace this model (a provider pointed at the local mock). */
export function useModel(dir: string, participant: string, model: Record<string, unknown>): void {
  const file = join(dir, '.legion/collective/participants', `${participant}.json`);
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }, null, 2));
}
