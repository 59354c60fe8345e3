// `legion agents`, `legion tools`, `legion config`, `legion doctor`. Registered from legion.ts; each
// action imports its module (and core) only when it runs, so start-up stays fast.
import type { Command } from 'commander';
import { helpWhenAlone } from './command-groups.js';
import { examples } from './help-examples.js';
import { runCli } from './run-cli.js';

export function registerManagementCommands(program: Command): void {
  const workspace = (): string | undefined => program.opts<{ workspace?: string }>().workspace;

  const agents = helpWhenAlone(program.command('agents'))
    .description('list, show, add, edit or remove the participants of the collective')
    .addHelpText(
      'after',
      examples([
        'legion agents list',
        'legion agents show developer',
        'legion agents add tester --template researcher --description "Writes tests" --tools "file_*,shell_run"',
        'legion agents add analyst --provider openai --model gpt-4.1 --system-prompt "You analyse data."',
        'EDITOR=nano legion agents edit developer',
        'legion agents rm tester --yes',
      ]),
    );
  agents
    .command('list')
    .description('every participant: id, type, model, tools, whom it talks to, what it is for')
    .addHelpText('after', examples(['legion agents list', 'legion agents list --all --json']))
    .option('--all', 'include retired participants')
    .option('--json', 'one JSON object')
    .action((options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/agents.js')).agentsListCommand({ ...options, workspace: workspace() })),
    );
  agents
    .command('show')
    .description("one participant's definition, with its effective model")
    .addHelpText('after', examples(['legion agents show developer', 'legion agents show developer --json']))
    .argument('<id>', 'participant id')
    .option('--json', 'one JSON object')
    .action((id: string, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/agents.js')).agentsShowCommand(id, { ...options, workspace: workspace() })),
    );
  agents
    .command('add')
    .description('create an agent from a template and/or flags (validated; never replaces an existing file)')
    .addHelpText(
      'after',
      examples([
        'legion agents add tester --template researcher --description "Writes tests" --tools "file_*,shell_run"',
        'legion agents add analyst --provider openai --model gpt-4.1 --system-prompt "You analyse data."',
        'legion agents add --a2a https://agents.example.com/.well-known/agent-card.json',
      ]),
    )
    .argument('[id]', 'the new agent\'s id (letters, digits, ".", "-", single "_"); with --a2a, default: from the card\'s name')
    .option('--template <name>', 'start from .legion/templates/NAME.json')
    .option('--name <name>', "display name (default: the template's, else the id)")
    .option('--description <text>', 'what it does, shown to people and to other agents')
    .option('--use-for <text>', 'what others should bring to it (shown in their system prompts)')
    .option('--system-prompt <text>', 'its instructions (required without a template)')
    .option('--provider <name>', 'model provider: anthropic, openai, openrouter, ollama, … (with --model)')
    .option('--model <name>', "model name (with --provider); default: the config's defaultModel")
    .option('--base-url <url>', 'endpoint for the model (OpenAI-compatible servers)')
    .option('--tools <list>', 'tools its model sees: all, none, or names and globs ("file_*,shell_run")')
    .option('--delegation <list>', 'whom it may communicate with: all, none, or ids ("reviewer,user")')
    .option('--a2a <url>', "a remote A2A agent: read its agent card at URL and add it (credentials: the global config's remoteAgents)")
    .option('--json', 'print the created participant as JSON')
    .action((id: string | undefined, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/agents-add.js')).agentsAddCommand(id, { ...options, workspace: workspace() })),
    );
  agents
    .command('edit')
    .description('open the participant file in $EDITOR; it is saved only once it validates (your edit is never lost)')
    .addHelpText('after', examples(['legion agents edit developer', 'EDITOR=nano legion agents edit developer']))
    .argument('<id>', 'participant id')
    .action((id: string) =>
      runCli(async () => (await import('./commands/agents-edit.js')).agentsEditCommand(id, { workspace: workspace() })),
    );
  agents
    .command('rm')
    .description('remove a participant file (refuses the last user or an agent others delegate to, unless --force)')
    .addHelpText('after', examples(['legion agents rm tester', 'legion agents rm tester --yes --force']))
    .argument('<id>', 'participant id')
    .option('--force', 'remove it even if others depend on it')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((id: string, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/agents.js')).agentsRmCommand(id, { ...options, workspace: workspace() })),
    );

  helpWhenAlone(program.command('tools'))
    .description("the tools each agent's model sees, where they come from, what they need by policy, and why others are hidden")
    .addHelpText(
      'after',
      examples(['legion tools list', 'legion tools list --agent developer', 'legion tools list --agent developer --json']),
    )
    .command('list')
    .description('list tools per agent (starts configured MCP servers to list theirs)')
    .addHelpText(
      'after',
      examples(['legion tools list', 'legion tools list --agent developer --visible', 'legion tools list --agent developer --json']),
    )
    .option('--agent <id>', 'only this agent')
    .option('--visible', 'only the tools its model sees')
    .option('--json', 'one JSON object')
    .action((options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/tools.js')).toolsListCommand({ ...options, workspace: workspace() })),
    );

  const config = helpWhenAlone(program.command('config'))
    .description('show, get or set configuration (defaults → global → workspace → participant)')
    .addHelpText(
      'after',
      examples([
        'legion config show --layers',
        'legion config show --layers --agent developer',
        'legion config get limits.maxDepth',
        'legion config set limits.maxDepth 8',
        `legion config set 'pricing["my-model"]' '{"input": 0, "output": 0}'`,
        'legion config set providers.openai.apiKey sk-… --global      # keys only in the global config',
      ]),
    );
  config
    .command('show')
    .description('the effective config, one key per line')
    .addHelpText('after', examples(['legion config show', 'legion config show --layers --agent developer', 'legion config show --json']))
    .option('--layers', 'also say which file each value comes from')
    .option('--agent <id>', "apply this agent's own model and limits (the participant layer)")
    .option('--json', 'one JSON object')
    .action((options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/config.js')).configShowCommand({ ...options, workspace: workspace() })),
    );
  config
    .command('get')
    .description('print one effective value (JSON for objects and lists)')
    .addHelpText('after', examples(['legion config get limits.maxDepth', 'legion config get defaultModel --agent developer']))
    .argument('<key>', 'dotted key, e.g. limits.maxDepth')
    .option('--agent <id>', "apply this agent's own model and limits")
    .action((key: string, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/config.js')).configGetCommand(key, { ...options, workspace: workspace() })),
    );
  config
    .command('set')
    .description('set one value in the workspace config (or --global), validated before the file is replaced')
    .addHelpText('after', examples(['legion config set limits.maxDepth 8', 'legion config set providers.openai.apiKey sk-… --global']))
    .argument('<key>', 'dotted key, e.g. limits.maxDepth')
    .argument('<value>', 'JSON (8, true, ["a"], {"x": 1}) or plain text')
    .option('--global', 'write the global config (~/.config/legion/config.json), the place for API keys')
    .action((key: string, value: string, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/config.js')).configSetCommand(key, value, { ...options, workspace: workspace() })),
    );

  const models = program
    .command('models')
    .description("the providers and models Legion knows: which providers have a key, each model's window and price")
    .option('--all', 'also the models of providers without a key')
    .option('--json', 'one JSON object')
    .addHelpText(
      'after',
      examples(['legion models', 'legion models --all', 'legion models --json | jq \'.providers[] | select(.key.from == "missing")\'']),
    )
    .action((options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/models.js')).modelsCommand({ ...options, workspace: workspace() })),
    );
  models
    .command('test')
    .description("contact the endpoint of each agent's model (or one agent's): its models, the window it reports (no token spent)")
    .argument('[agent]', 'the agent whose model to test (default: every active agent)')
    .option('--timeout <ms>', 'how long each endpoint may take to answer', '15000')
    .addHelpText(
      'after',
      `${examples(['legion models test', 'legion models test developer'])}\nExit status 1 when an endpoint cannot be used.`,
    )
    .action((agent: string | undefined, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/doctor.js')).modelsTestCommand(agent, { ...options, workspace: workspace() })),
    );

  const auth = helpWhenAlone(program.command('auth'))
    .description('API keys of model providers, kept in the global config (readable only by you), never in the workspace')
    .addHelpText(
      'after',
      examples([
        'legion auth set anthropic                       # asks for the key; what you type is not shown',
        'printf %s "$KEY" | legion auth set openai --stdin',
        'legion auth list',
        'legion auth rm openai',
      ]),
    );
  auth
    .command('set')
    .description("store a provider's key (typed at a prompt that shows nothing, or --stdin)")
    .argument('<provider>', 'anthropic, openai, openrouter, … (legion models lists them)')
    .option('--stdin', 'read the key from standard input (also when it is not a terminal)')
    .addHelpText('after', examples(['legion auth set anthropic', 'printf %s "$OPENAI_API_KEY" | legion auth set openai --stdin']))
    .action((provider: string, options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/auth.js')).authSetCommand(provider, options)),
    );
  auth
    .command('rm')
    .description("remove a provider's key from the global config")
    .argument('<provider>', 'provider name')
    .addHelpText('after', examples(['legion auth rm openai']))
    .action((provider: string) => runCli(async () => (await import('./commands/auth.js')).authRemoveCommand(provider)));
  auth
    .command('list')
    .description('each provider and where its key comes from (global config or environment), masked')
    .addHelpText('after', examples(['legion auth list', 'legion auth list --json']))
    .option('--json', 'one JSON object')
    .action((options: Record<string, unknown>) => runCli(async () => (await import('./commands/auth.js')).authListCommand(options)));

  program
    .command('doctor')
    .description('check the workspace, config, participants, provider keys, MCP servers and tool files (no model is called)')
    .option('--json', 'print the report as JSON on stdout ({ success, summary, checks })')
    .option('--probe', "contact each agent's model endpoint: list its models and read the window it reports (no token spent)")
    .option('--timeout <ms>', 'how long each MCP server (and with --probe, each endpoint) may take to answer', '15000')
    .addHelpText(
      'after',
      `${examples(['legion doctor', 'legion doctor --probe', `legion doctor --json 2>/dev/null | jq '.checks[] | select(.status == "failed")'`])}
Exit status 1 when any check fails. Human output goes to stderr, so --json output can be piped.`,
    )
    .action((options: Record<string, unknown>) =>
      runCli(async () => (await import('./commands/doctor.js')).doctorCommand({ ...options, workspace: workspace() })),
    );
}
