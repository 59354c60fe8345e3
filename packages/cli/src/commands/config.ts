import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ConfigError, DEFAULT_CONFIG, LegionError } from '@legion-collective/core';
import {
  globalConfigPath,
  participantFilePath,
  saveConfigLayer,
  secretsInConfig,
  workspaceConfigPath,
  type ConfigLayerReport,
} from '@legion-collective/core/management';
import { formatKey, getAt, leaves, parseKey, parseValue, setAt } from '../config-keys.js';
import { columns } from '../render/columns.js';
import { styleFor } from '../render/style.js';
import { readRoster, type Roster } from '../roster.js';
import { resolveWorkspace } from '../workspace.js';
import { findParticipant } from './agents.js';
import { stdout, stderr } from '../render/terminal-text.js';

interface ConfigOptions {
  workspace?: string | undefined;
  json?: boolean;
  layers?: boolean;
  agent?: string;
  global?: boolean;
}

interface Setting {
  key: string;
  value: unknown;
  /** `defaults`, or the file the value comes from. */
  from: string;
}

/**
 * `legion config show`: the effective config, one key per line; with
 * --layers, the file each value comes from (defaults → global → workspace →
 * the participant's own model and limits with --agent). Secret values are never printed.
 */
export async function configShowCommand(options: ConfigOptions): Promise<number> {
  const roster = readRoster(resolveWorkspace(options.workspace));
  for (const problem of roster.problems.filter((line) => roster.layers.some((layer) => line.startsWith(layer.file))))
    stderr.write(`warning: ${problem}\n`);
  const settings = effectiveSettings(roster, options.agent);
  if (options.json) {
    const config = Object.fromEntries(settings.map((setting) => [setting.key, setting.value]));
    const sources = Object.fromEntries(settings.map((setting) => [setting.key, setting.from]));
    stdout.json(options.layers ? { config, sources, layers: layerFiles(roster) } : { config });
    return 0;
  }
  const style = styleFor(process.stdout);
  if (options.layers) {
    stdout.write(
      `${style.dim('layers, lowest first: defaults → ')}${layerFiles(roster)
        .map((layer) => `${layer.source} ${layer.file}${layer.exists ? '' : style.dim(' (absent)')}`)
        .join(style.dim(' → '))}${options.agent ? style.dim(` → participant ${options.agent}`) : ''}\n\n`,
    );
  }
  const rows = settings.map((setting) => [setting.key, display(setting.value), ...(options.layers ? [style.dim(setting.from)] : [])]);
  stdout.write(`${columns(rows, { maxWidth: 80 })}\n`);
  return 0;
}

/** `legion config get KEY`: the effective value (JSON for objects and lists); exit 1 when no layer sets it. */
export async function configGetCommand(key: string, options: ConfigOptions): Promise<number> {
  const roster = readRoster(resolveWorkspace(options.workspace));
  const parts = parseKey(key);
  const settings = effectiveSettings(roster, options.agent);
  const exact = settings.find((setting) => setting.key === formatKey(parts));
  const under = settings.filter(
    (setting) => setting.key.startsWith(`${formatKey(parts)}.`) || setting.key.startsWith(`${formatKey(parts)}[`),
  );
  if (!exact && under.length === 0) {
    const known = [...new Set(settings.map((setting) => setting.key.split(/[.[]/)[0]!))];
    throw new LegionError(
      'config_key_unknown',
      `No config value at "${key}". Top-level keys: ${known.join(', ')}. See them all with "legion config show".`,
    );
  }
  const value = exact
    ? exact.value
    : Object.fromEntries(under.map((setting) => [setting.key.slice(formatKey(parts).length + 1), setting.value]));
  stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
  return 0;
}

/**
 * `legion config set KEY VALUE [--global]`: changes one value in the workspace
 * config (or the global one), validated against the config schema before the
 * file is atomically replaced. Keys, tokens and passwords are refused in the
 * workspace config, which is meant for git; the message names the global file.
 */
export async function configSetCommand(key: string, text: string, options: ConfigOptions): Promise<number> {
  const parts = parseKey(key);
  const value = parseValue(text);
  const target: Pick<ConfigLayerReport, 'source' | 'file'> = options.global
    ? { source: 'global', file: globalConfigPath() }
    : { source: 'workspace', file: workspaceConfigPath(resolveWorkspace(options.workspace)) };
  const current = readLayerObject(target.file);
  const next = setAt(current, parts, value);
  saveConfigLayer(target, next);
  stderr.write(`Set ${formatKey(parts)} in ${target.file}.\n`);
  return 0;
}

/** A config file as plain JSON, so that setting one key keeps the others exactly as written. */
function readLayerObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConfigError({
      file,
      field: '',
      problem: `is not valid JSON (${(error as Error).message})`,
      fix: 'correct its JSON first; nothing was changed',
    });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError({
      file,
      field: '(root)',
      problem: 'is not a JSON object',
      fix: 'make it an object ({ … }) first; nothing was changed',
    });
  return raw as Record<string, unknown>;
}

function effectiveSettings(roster: Roster, agentId: string | undefined): Setting[] {
  const sources: Array<{ from: string; value: unknown }> = [{ from: 'defaults', value: DEFAULT_CONFIG }];
  for (const layer of roster.layers) if (layer.layer) sources.push({ from: displayFile(roster, layer.file), value: layer.layer });
  let effective: Record<string, unknown> = { ...roster.config };
  if (agentId !== undefined) {
    const agent = findParticipant(roster, agentId);
    if (agent.type !== 'agent')
      throw new LegionError('not_an_agent', `"${agentId}" is a ${agent.type}: only agents have a model and limits of their own.`);
    // For one agent, the config's defaultModel is its `model` unless it names its own.
    const { defaultModel, ...rest } = roster.config;
    effective = { ...rest, model: agent.model ?? defaultModel, limits: { ...roster.config.limits, ...agent.limits } };
    for (const source of sources) {
      const value = source.value as { defaultModel?: unknown };
      source.value = { ...value, model: value.defaultModel };
    }
    sources.push({
      from: displayFile(roster, participantFilePath(roster.root, agent.id)),
      value: { model: agent.model, limits: agent.limits },
    });
  }
  const secret = new Set(secretsInConfig(effective));
  return leaves(effective).map(([parts, value]) => {
    const from =
      [...sources].reverse().find((source) => getAt(source.value, parts) !== undefined || covers(source.value, parts))?.from ?? 'defaults';
    return { key: formatKey(parts), value: secret.has(parts.join('.')) ? '[secret]' : value, from };
  });
}

/** A layer that sets a list or a whole value higher up sets this key too. */
function covers(layer: unknown, parts: readonly string[]): boolean {
  for (let length = parts.length - 1; length > 0; length--) {
    const value = getAt(layer, parts.slice(0, length));
    if (value !== undefined) return value === null || typeof value !== 'object' || Array.isArray(value);
  }
  return false;
}

function layerFiles(roster: Roster): Array<{ source: string; file: string; exists: boolean }> {
  return roster.layers.map((layer) => ({ source: layer.source, file: displayFile(roster, layer.file), exists: layer.exists }));
}

function displayFile(roster: Roster, file: string): string {
  return file.startsWith(`${roster.root}/`) ? relative(roster.root, file) : file;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
