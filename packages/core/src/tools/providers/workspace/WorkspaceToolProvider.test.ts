import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LegionEvents } from '../../../kernel/events/event-types.js';
import { EventBus } from '../../../kernel/events/EventBus.js';
import { WorkspacePaths } from '../../../store/fs/workspace-paths.js';
import { ToolRegistry } from '../../ToolRegistry.js';
import { toolContext } from '../__fixtures__/tool-context.js';
import { createWorkspaceToolProvider, type WorkspaceToolProvider } from './WorkspaceToolProvider.js';

let root: string;
let paths: WorkspacePaths;
let events: EventBus;
let registry: ToolRegistry;
let provider: WorkspaceToolProvider | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-workspace-tools-'));
  paths = new WorkspacePaths(root);
  mkdirSync(paths.toolsDir, { recursive: true });
  events = new EventBus();
  registry = new ToolRegistry({ events });
});

afterEach(async () => {
  await registry.dispose();
  provider?.dispose();
  provider = undefined;
  rmSync(root, { recursive: true, force: true });
});

function writeTool(file: string, definition: unknown): string {
  const path = join(paths.toolsDir, file);
  writeFileSync(path, typeof definition === 'string' ? definition : JSON.stringify(definition, null, 2));
  return path;
}

function echoTool(name: string, word: string): Record<string, unknown> {
  return {
    name,
    description: `prints ${word}`,
    requiresApproval: false,
    execution: { type: 'shell', command: [process.execPath, '-e', `process.stdout.write(${JSON.stringify(word)})`] },
  };
}

function start(options: { directory?: string } = {}): WorkspaceToolProvider {
  provider = createWorkspaceToolProvider({ directory: options.directory ?? paths.toolsDir, workspaceRoot: root, events, debounceMs: 20 });
  registry.registerToolProvider(provider);
  return provider;
}

/** Resolves with the first event of this type that matches; bounded so a missed change fails instead of hanging. */
function nextEvent<Name extends 'tool:register' | 'tool:unregister' | 'storage:warning'>(
  type: Name,
  matches: (event: LegionEvents[Name]) => boolean,
): Promise<LegionEvents[Name]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no matching ${type} event within 10 s`));
    }, 10_000);
    const stop = events.on(type, (event) => {
      if (!matches(event)) return;
      clearTimeout(timer);
      stop();
      resolve(event);
    });
  });
}

describe('WorkspaceToolProvider', () => {
  it('registers valid files and reports a broken one with its path and the schema error, without losing the rest', async () => {
    writeTool('alpha.json', echoTool('alpha', 'A'));
    const broken = writeTool('broken.json', { name: 'broken', description: 'x', execution: { type: 'shell', command: 'rm -rf /' } });
    const notJson = writeTool('typo.json', '{ "name": "typo", ');
    const unknownPlaceholder = writeTool('ghost.json', {
      ...echoTool('ghost', 'G'),
      execution: { type: 'shell', command: ['echo', '${nope}'] },
    });
    writeTool('README.md', 'not a tool');
    const warnings: Array<LegionEvents['storage:warning']> = [];
    events.on('storage:warning', (event) => warnings.push(event));

    const workspace = start();

    expect(registry.list().map((tool) => tool.name)).toEqual(['alpha']);
    expect(registry.providerOf('alpha')).toBe('workspace');
    expect(await registry.get('alpha')!.execute({}, toolContext({ workspaceRoot: root }))).toEqual({ status: 'success', data: 'A' });
    expect(workspace.problems.map((problem) => [problem.path, problem.field])).toEqual([
      [broken, 'execution.command'],
      [unknownPlaceholder, 'execution.command[1]'],
      [notJson, ''],
    ]);
    expect(workspace.problems[0]!.message).toContain(`${broken} (field "execution.command")`);
    expect(workspace.problems[1]!.message).toContain('refers to "${nope}", which is not a parameter, a variable or ${env:NAME}');
    expect(workspace.problems[2]!.message).toMatch(/is not valid JSON/);
    expect(warnings.map((warning) => warning.path)).toEqual([broken, unknownPlaceholder, notJson]);
  });

  it('refuses a second file that defines a tool name already taken', () => {
    writeTool('a.json', echoTool('same', 'first'));
    const second = writeTool('b.json', echoTool('same', 'second'));
    const workspace = start();
    expect(registry.list()).toHaveLength(1);
    expect(workspace.problems).toEqual([
      expect.objectContaining({ path: second, field: 'name', message: expect.stringContaining('already defined by') }),
    ]);
  });

  it('picks up a new file, an edit and a deletion while running', async () => {
    writeTool('alpha.json', echoTool('alpha', 'A'));
    start();
    const alpha = registry.get('alpha');

    const added = nextEvent('tool:register', (event) => event.name === 'beta');
    writeTool('beta.json', echoTool('beta', 'B'));
    expect(await added).toEqual({ type: 'tool:register', seq: expect.any(Number), name: 'beta', providerId: 'workspace' });
    // An unchanged file keeps its tool: listeners see no churn.
    expect(registry.get('alpha')).toBe(alpha);

    const replaced = nextEvent('tool:register', (event) => event.name === 'beta');
    writeTool('beta.json', echoTool('beta', 'B2'));
    await replaced;
    expect(await registry.get('beta')!.execute({}, toolContext({ workspaceRoot: root }))).toEqual({ status: 'success', data: 'B2' });

    const removed = nextEvent('tool:unregister', (event) => event.name === 'alpha');
    unlinkSync(join(paths.toolsDir, 'alpha.json'));
    await removed;
    expect(registry.list().map((tool) => tool.name)).toEqual(['beta']);
  });

  it('drops a tool whose file breaks, reports why, and brings it back when fixed', async () => {
    writeTool('alpha.json', echoTool('alpha', 'A'));
    writeTool('beta.json', echoTool('beta', 'B'));
    const workspace = start();

    const gone = nextEvent('tool:unregister', (event) => event.name === 'alpha');
    const warned = nextEvent('storage:warning', (event) => event.path.endsWith('alpha.json'));
    const path = writeTool('alpha.json', { ...echoTool('alpha', 'A'), timeoutMs: 'soon' });
    await gone;
    expect((await warned).problem).toContain(`${path} (field "timeoutMs")`);
    expect(registry.list().map((tool) => tool.name)).toEqual(['beta']);
    expect(workspace.problems).toHaveLength(1);

    const back = nextEvent('tool:register', (event) => event.name === 'alpha');
    writeTool('alpha.json', echoTool('alpha', 'A'));
    await back;
    expect(workspace.problems).toEqual([]);
  });

  it('notices the tools directory when it is created after start', async () => {
    rmSync(paths.toolsDir, { recursive: true });
    start();
    expect(registry.list()).toEqual([]);
    const added = nextEvent('tool:register', (event) => event.name === 'late');
    mkdirSync(paths.toolsDir);
    // The directory appearing triggers a reload that switches the watch to it; the file may land in either.
    writeTool('late.json', echoTool('late', 'L'));
    expect(await added).toMatchObject({ name: 'late' });
  });

  it('removes its tools and stops watching when the provider is disposed', async () => {
    writeTool('alpha.json', echoTool('alpha', 'A'));
    const workspace = createWorkspaceToolProvider({ directory: paths.toolsDir, workspaceRoot: root, events, debounceMs: 20 });
    const dispose = registry.registerToolProvider(workspace);
    const removed: string[] = [];
    events.on('tool:unregister', (event) => removed.push(event.name));
    await dispose();
    expect(removed).toEqual(['alpha']);
    expect(registry.list()).toEqual([]);
    const registered: string[] = [];
    events.on('tool:register', (event) => registered.push(event.name));
    writeTool('beta.json', echoTool('beta', 'B'));
    workspace.reload();
    expect(registered).toEqual([]);
  });
});
