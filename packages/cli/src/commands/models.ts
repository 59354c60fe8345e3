import { findWorkspaceRoot, type ConfigLayer, type ModelConfig, type ResolvedConfig } from '@legion-collective/core';
import { inspectConfigLayers, modelCatalogue, resolveConfigLayers, type CatalogueModel } from '@legion-collective/core/management';
import { resolve } from 'node:path';
import { describeKey, formatPrice, formatWindow } from '../models-table.js';
import { columns } from '../render/columns.js';
import { styleFor } from '../render/style.js';
import { inertLine, stderr, stdout } from '../render/terminal-text.js';
import { readRoster } from '../roster.js';

/**
 * `legion models`: the providers Legion knows with where each one's key comes from, and the
 * models it knows with their windows and prices (those in use first). In a workspace, its config
 * and agents count; elsewhere, the global config alone.
 */
export async function modelsCommand(options: { workspace?: string | undefined; json?: boolean; all?: boolean }): Promise<number> {
  const root = findWorkspaceRoot(resolve(options.workspace ?? process.cwd()));
  let config: ResolvedConfig;
  let agents: Array<{ id: string; model: ModelConfig | undefined }> = [];
  if (root) {
    const roster = readRoster(root);
    for (const problem of roster.problems) stderr.write(`warning: ${problem}\n`);
    config = roster.config;
    agents = roster.participants.flatMap((participant) =>
      participant.type === 'agent' && participant.status === 'active' ? [{ id: participant.id, model: participant.model }] : [],
    );
  } else {
    const layers = inspectConfigLayers({});
    for (const layer of layers) if (layer.error) stderr.write(`warning: ${layer.error.message}\n`);
    config = resolveConfigLayers(layers.flatMap((layer): ConfigLayer[] => (layer.layer ? [layer.layer] : [])));
  }
  const catalogue = await modelCatalogue({ config, agents, env: process.env });
  const keyed = new Set(catalogue.providers.filter((provider) => provider.key.from !== 'missing').map((provider) => provider.name));
  if (options.json) {
    stdout.json({
      providers: catalogue.providers,
      models: catalogue.models.map((model) => ({ ...model, keyed: keyed.has(model.provider) })),
    });
    return 0;
  }
  const style = styleFor(process.stdout);
  stdout.write(`${style.bold('Providers')}\n`);
  stdout.write(
    `${columns(
      catalogue.providers.map((provider) => [
        `  ${provider.name}`,
        provider.key.from === 'missing' ? style.yellow(describeKey(provider)) : style.green(describeKey(provider)),
        style.dim(
          provider.key.from === 'missing' ? `legion auth set ${provider.name}  (or ${provider.apiKeyEnv ?? 'its key variable'})` : '',
        ),
      ]),
    )}\n\n`,
  );
  // A local server's models need no key but may not be served here: listed with --all, like those of providers without a key.
  const withKey = new Set(
    catalogue.providers
      .filter((provider) => provider.key.from === 'environment' || provider.key.from === 'global-config')
      .map((p) => p.name),
  );
  const shown = options.all ? catalogue.models : catalogue.models.filter((model) => model.usedBy.length > 0 || withKey.has(model.provider));
  const order = (model: CatalogueModel): number =>
    model.usedBy.length > 0 ? 0 : withKey.has(model.provider) ? 1 : keyed.has(model.provider) ? 2 : 3;
  const rows = [...shown]
    .sort((a, b) => order(a) - order(b))
    .map((model) => [
      `  ${inertLine(`${model.provider}/${model.model}`)}`,
      model.windowSource === 'default' ? style.yellow(`${formatWindow(model.window)} (a guess)`) : formatWindow(model.window),
      formatPrice(model),
      keyed.has(model.provider) ? '' : style.yellow('no key'),
      model.usedBy.length > 0 ? style.cyan(`used by ${model.usedBy.join(', ')}`) : '',
    ]);
  stdout.write(`${style.bold('Models')}${style.dim('  (window, price per million tokens in / out)')}\n${columns(rows)}\n`);
  const hidden = catalogue.models.length - shown.length;
  if (hidden > 0) stdout.write(style.dim(`\n${hidden} more, of local servers and providers without a key: legion models --all\n`));
  stdout.write(style.dim('Switch a model: /model in the REPL, or legion agents add … --provider P --model M\n'));
  return 0;
}
