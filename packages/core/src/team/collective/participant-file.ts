import { existsSync, readdirSync } from 'node:fs';
import { readRegularFileSync, parseJsonText, readJsonFile, writeTextAtomic, writeTextIfAbsent, WorkspacePaths } from '../../store/index.js';
import { basename } from 'node:path';
import { ConfigError, errorMessage, LegionError } from '../../kernel/index.js';
import { isValidIdPart } from './participant-id.js';
import { AgentTemplateSchema, ParticipantSchema, type AgentTemplate, type Participant } from './participant.js';

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
  const text = readRegularFileSync(path, { requested: options.displayPath ?? path }).toString('utf8');
  return parseParticipantFile(text, { file: options.displayPath ?? path, expectedId: basename(path, '.json') });
}

/** One participant file as found: valid (its `participant`) or broken (its `error`, naming the file, field and fix). */
export interface ParticipantFileReport {
  id: string;
  /** Absolute path. */
  path: string;
  /** Relative to the workspace root, as messages name it. */
  file: string;
  participant?: Participant;
  error?: ConfigError;
}

/**
 * Every participant file of a workspace, each on its own, in id order: a broken
 * file is reported and the others still read. What `legion doctor` and
 * `legion agents` use; opening a workspace (`Legion.open`) fails on the first error.
 */
export function inspectParticipantFiles(root: string): ParticipantFileReport[] {
  const paths = new WorkspacePaths(root);
  if (!existsSync(paths.participantsDir)) return [];
  return readdirSync(paths.participantsDir)
    .filter((entry) => entry.endsWith('.json'))
    .sort()
    .map((entry) => {
      const path = paths.participantFile(basename(entry, '.json'));
      const report = { id: basename(entry, '.json'), path, file: paths.display(path) };
      try {
        return { ...report, participant: readParticipantFile(path, { displayPath: report.file }) };
      } catch (error) {
        const problem =
          error instanceof ConfigError
            ? error
            : new ConfigError({
                file: report.file,
                field: '',
                problem: `could not be read (${errorMessage(error)})`,
                fix: 'check that the file is readable',
              });
        return { ...report, error: problem };
      }
    });
}

/** Where participant `id`'s file lives; an id that is not a valid participant id (a path, `..`) is refused. */
export function participantFilePath(root: string, id: string): string {
  if (!isValidIdPart(id)) {
    throw new LegionError(
      'invalid_participant_id',
      `"${id}" is not a participant id: use letters, digits, ".", "-" or single "_" (no "__", at most 64 characters).`,
      { id },
    );
  }
  return new WorkspacePaths(root).participantFile(id);
}

/**
 * Validates `text` as participant `id`'s file and writes it atomically, as
 * written (a person's formatting is kept). With `create`, an existing file is
 * never replaced (`participant_exists`). A mistake throws the `ConfigError` of
 * `parseParticipantFile` and writes nothing.
 */
export function saveParticipantFile(root: string, id: string, text: string, options: { create?: boolean } = {}): Participant {
  const path = participantFilePath(root, id);
  const file = new WorkspacePaths(root).display(path);
  const participant = parseParticipantFile(text, { file, expectedId: id });
  if (!options.create) writeTextAtomic(path, text);
  else if (!writeTextIfAbsent(path, text))
    throw new LegionError('participant_exists', `${file} already exists: pick another id, or change it with "legion agents edit ${id}".`, {
      id,
    });
  return participant;
}

/** `.legion/templates/<name>.json`, validated; a name that is not a plain file name is refused. */
export function loadAgentTemplate(root: string, name: string): AgentTemplate {
  const paths = new WorkspacePaths(root);
  // The name becomes a path: keep it inside the templates folder.
  if (!isValidIdPart(name)) {
    throw new LegionError('invalid_template_name', `Invalid template name "${name}": use letters, digits, ".", "-" or single "_".`, {
      name,
    });
  }
  const file = `${paths.templatesDir}/${name}.json`;
  if (!existsSync(file))
    throw new LegionError('template_not_found', `No template "${name}" in ${paths.display(paths.templatesDir)}.`, { name });
  return readJsonFile(file, AgentTemplateSchema, { what: 'agent template', displayPath: paths.display(file) });
}

/** The names of the workspace's agent templates. */
export function agentTemplateNames(root: string): string[] {
  const directory = new WorkspacePaths(root).templatesDir;
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((entry) => entry.endsWith('.json'))
    .map((entry) => basename(entry, '.json'))
    .sort();
}
