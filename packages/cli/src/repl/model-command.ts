import { PROVIDER_PRESETS, type AgentParticipant, type Legion } from '@legion-collective/core';
import { checkModelAccess, modelCatalogue, parseModelName, type CatalogueModel } from '@legion-collective/core/management';
import type { AutocompleteItem } from '@mariozechner/pi-tui';
import { styleFor } from '../render/style.js';
import { inertLine } from '../render/terminal-text.js';
import { describeModel } from '../models-table.js';

const style = styleFor(process.stdout);

/** What `/model` needs of the REPL (a part of the slash commands' control). */
export interface ModelControl {
  readonly legion: Legion;
  readonly target: { to: string };
  print(text: string): void;
  choose(
    title: string,
    items: Array<{ label: string; value: string; description?: string }>,
    selected?: number,
  ): Promise<string | undefined>;
}

/**
 * `/model [agent] [provider/model]`: switches an agent's model and saves it in its participant
 * file, so the next request (of this REPL and of every process) goes to the new model. Without a
 * model, a list of the models Legion knows to choose from; without an agent, the one you talk to.
 */
export async function modelCommand(control: ModelControl, args: string): Promise<void> {
  // Edits made elsewhere since the last message are taken first: saving must not write over them.
  control.legion.reloadConfig();
  const words = args.trim().split(/\s+/).filter(Boolean);
  const collective = control.legion.collective;
  const named = words[0] !== undefined && collective.get(words[0]) !== undefined;
  const agentId = named ? words[0]! : control.target.to;
  const agent = collective.get(agentId);
  if (agent?.type !== 'agent') {
    const agents = collective.agents().map((candidate) => candidate.id);
    control.print(style.red(`"${agentId}" is not an agent: name one first (/model AGENT MODEL). Agents: ${agents.join(', ')}`));
    return;
  }
  const current = agent.model ?? control.legion.config.defaultModel;
  const typed = named ? words[1] : words[0];
  if (words.length > (named ? 2 : 1)) {
    control.print(style.red('Usage: /model [agent] [provider/model], e.g. /model developer openai/gpt-4.1'));
    return;
  }
  let name = typed;
  if (name === undefined) {
    // The agents' own models are listed too, so that a model the table does not know (the agent's own) is where the list starts.
    const agents = collective.agents().map((each) => ({ id: each.id, model: each.model }));
    const catalogue = await modelCatalogue({ config: control.legion.config, agents, env: process.env });
    const keyed = new Set(catalogue.providers.filter((provider) => provider.key.from !== 'missing').map((provider) => provider.name));
    const local = new Set(catalogue.providers.filter((provider) => provider.key.from === 'none-needed').map((provider) => provider.name));
    // Models of providers with a key first, then local servers', then those without a key; the list starts at the agent's own model.
    const rank = (provider: string): number => (local.has(provider) ? 1 : keyed.has(provider) ? 0 : 2);
    const models = [...catalogue.models].sort((a, b) => rank(a.provider) - rank(b.provider));
    const items = models.map((model) => ({
      value: `${model.provider}/${model.model}`,
      label: inertLine(`${model.provider}/${model.model}`),
      description: `${describeModel(model)}${keyed.has(model.provider) ? '' : ' · no key'}`,
    }));
    const selected = Math.max(
      0,
      items.findIndex((item) => item.value === `${current.provider}/${current.model}`),
    );
    name = await control.choose(
      `Model for ${agentId} (now ${current.provider}/${current.model}): ↑/↓, Enter to choose, Esc to keep it`,
      items,
      selected,
    );
    if (name === undefined) return control.print(style.dim(`  ${agentId} keeps ${current.provider}/${current.model}.`));
  }
  switchModel(control, agent, name);
}

function switchModel(control: ModelControl, agent: AgentParticipant, name: string): void {
  const legion = control.legion;
  const current = agent.model ?? legion.config.defaultModel;
  const parsed = parseModelName(
    name,
    current.provider,
    new Set([...Object.keys(legion.config.providers), ...Object.keys(PROVIDER_PRESETS)]),
  );
  // The same provider keeps its endpoint and settings; another one starts from its own defaults.
  const model = parsed.provider === current.provider ? { ...current, model: parsed.model } : parsed;
  try {
    legion.collective.save({ ...agent, model });
  } catch (error) {
    control.print(style.red(`  ${error instanceof Error ? error.message : String(error)}`));
    return;
  }
  const file = legion.paths.display(legion.paths.participantFile(agent.id));
  control.print(
    `  ${style.bold(agent.id)} now uses ${model.provider}/${inertLine(model.model)} (saved in ${file}); the next request goes to it.`,
  );
  const access = checkModelAccess(model, legion.config.providers, process.env);
  if (access.ok) return;
  const variable = PROVIDER_PRESETS[model.provider]?.apiKeyEnv;
  control.print(
    style.yellow(
      access.code === 'provider_no_key'
        ? `  No key for ${model.provider} yet: run legion auth set ${model.provider} in another shell (this REPL takes it from the next message)${variable ? `, or set ${variable} before starting legion` : ''}.`
        : `  ${access.problem}. ${access.fix}`,
    ),
  );
}

/** Tab completion: agents first, then (after an agent) the models of the table. */
export async function modelItems(control: ModelControl, prefix: string): Promise<AutocompleteItem[]> {
  const agents = control.legion.collective.agents().map((agent) => agent.id);
  const catalogue = await modelCatalogue({ config: control.legion.config, agents: [], env: process.env });
  const names = catalogue.models.map((model: CatalogueModel) => `${model.provider}/${model.model}`);
  // "developer gpt": the agent is named, the model is being typed.
  const space = prefix.indexOf(' ');
  const [before, typing] = space > 0 ? [`${prefix.slice(0, space)} `, prefix.slice(space + 1).trim()] : ['', prefix];
  const candidates = before ? names : [...agents, ...names];
  return (
    candidates
      // `gpt-4.1-m` finds `openai/gpt-4.1-mini`: people type the model, not always its provider.
      .filter((name) => name.startsWith(typing) || name.slice(name.indexOf('/') + 1).startsWith(typing))
      .slice(0, 50)
      .map((name) => ({ value: `${before}${name}`, label: inertLine(name) }))
  );
}
