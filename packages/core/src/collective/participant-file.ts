import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { ConfigError } from '../errors.js';
import { parseJsonText } from '../storage/atomic-json.js';
import { ParticipantSchema, type Participant } from './participant.js';

/**
 * The text of `.legion/collective/participants/<id>.json`, validated as Legion
 * loads it: JSON, the participant schema, and an `id` that matches the file
 * name. A mistake is a `ConfigError` naming `file`, the field and the fix, so
 * an editor (a person, `legion agents edit`) can check a file before it lands.
 */
export function parseParticipantFile(text: string, options: { file: string; expectedId?: string }): Participant {
  const participant = parseJsonText(text, ParticipantSchema, { what: 'participant file', file: options.file });
  const expectedId = options.expectedId ?? basename(options.file, '.json');
  if (participant.id !== expectedId) {
    throw new ConfigError({
      file: options.file,
      field: 'id',
      problem: `id "${participant.id}" does not match the file name`,
      fix: `set "id" to "${expectedId}" or rename the file to ${participant.id}.json`,
    });
  }
  return participant;
}

/** Reads one participant file; `displayPath` is how errors name it (relative to the workspace). */
export function readParticipantFile(path: string, options: { displayPath?: string } = {}): Participant {
  return parseParticipantFile(readFileSync(path, 'utf8'), { file: options.displayPath ?? path, expectedId: basename(path, '.json') });
}
