import { mkdirSync, writeFileSync } from 'node:fs';
import { writeJsonIfAbsent, WorkspacePaths } from '../../store/index.js';
import { CONFIG_FORMAT_VERSION } from './config-schema.js';
import { createDefaultParticipants, createDefaultTemplates } from '../collective/default-collective.js';
import { parseParticipant, type ParticipantInput } from '../collective/participant.js';

export interface InitResult {
  root: string;
  created: string[];
  kept: string[];
}

/**
 * Creates `.legion/` with a config, a starting collective and a `.gitignore`
 * that keeps sessions out of git. Files that already exist are kept as they are.
 */
export function initWorkspace(root: string, options: { participants?: ParticipantInput[]; entryAgent?: string } = {}): InitResult {
  const paths = new WorkspacePaths(root);
  const result: InitResult = { root: paths.root, created: [], kept: [] };
  const write = (path: string, value: unknown): void => {
    (writeJsonIfAbsent(path, value) ? result.created : result.kept).push(paths.display(path));
  };
  mkdirSync(paths.participantsDir, { recursive: true });
  mkdirSync(paths.toolsDir, { recursive: true });
  mkdirSync(paths.sessionsDir, { recursive: true });
  const participants = (options.participants ?? createDefaultParticipants()).map((participant) => parseParticipant(participant));
  // Name an entry agent only if it exists; otherwise the collective's own fallback (its first agent) applies.
  const entryAgent = options.entryAgent ?? participants.find((participant) => participant.id === 'coordinator')?.id;
  write(paths.configFile, { version: CONFIG_FORMAT_VERSION, ...(entryAgent === undefined ? {} : { entryAgent }) });
  for (const participant of participants) write(paths.participantFile(participant.id), participant);
  if (!options.participants) {
    for (const [name, template] of Object.entries(createDefaultTemplates())) write(`${paths.templatesDir}/${name}.json`, template);
  }
  try {
    writeFileSync(
      paths.gitignoreFile,
      '# Session logs are local working state; the collective and config are meant for git.\nsessions/\n# Claims and records of running processes on this machine.\nrun/\n',
      {
        flag: 'wx',
      },
    );
    result.created.push(paths.display(paths.gitignoreFile));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    result.kept.push(paths.display(paths.gitignoreFile));
  }
  return result;
}
