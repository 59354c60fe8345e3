import { type ConfigLayer, type Participant, type ResolvedConfig } from '@legion-collective/core';
import {
  inspectConfigLayers,
  inspectParticipantFiles,
  resolveConfigLayers,
  workspaceConfigPath,
  type ConfigLayerReport,
  type ParticipantFileReport,
} from '@legion-collective/core/management';

/**
 * The collective and config of a workspace read file by file, so that one
 * broken file is reported while the rest still show: what the management
 * commands list from (running agents needs every file valid; looking at them does not).
 */
export interface Roster {
  root: string;
  files: ParticipantFileReport[];
  participants: Participant[];
  layers: ConfigLayerReport[];
  /** The effective config of the valid layers. */
  config: ResolvedConfig;
  /** Broken participant and config files, each naming the file, the field and the fix. */
  problems: string[];
}

export function readRoster(root: string, env: NodeJS.ProcessEnv = process.env): Roster {
  const files = inspectParticipantFiles(root);
  const layers = inspectConfigLayers({ workspaceConfigFile: workspaceConfigPath(root), env });
  const valid = layers.flatMap((report): ConfigLayer[] => (report.layer ? [report.layer] : []));
  const problems = [...layers, ...files].flatMap((report) => (report.error ? [report.error.message] : []));
  return {
    root,
    files,
    participants: files.flatMap((report) => (report.participant ? [report.participant] : [])),
    layers,
    config: resolveConfigLayers(valid),
    problems,
  };
}

/** Other active agents whose `delegation` names this participant: they would lose someone they talk to. */
export function delegatorsOf(id: string, participants: readonly Participant[]): string[] {
  return participants
    .filter(
      (other) =>
        other.id !== id &&
        other.type === 'agent' &&
        other.status === 'active' &&
        Array.isArray(other.delegation) &&
        other.delegation.includes(id),
    )
    .map((other) => other.id);
}
