import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPid, PID_NAMESPACE } from '../../../testing/host-pid.js';
import { describeZodError } from '../../../kernel/zod-issues.js';
import type { ToolResult } from '../../tool.js';
import { toolContext } from '../__fixtures__/tool-context.js';
import { checkWorkspaceTool } from './workspace-tool-checks.js';
import { WorkspaceToolFileSchema } from './workspace-tool-schema.js';
import { createWorkspaceTool, type WorkspaceTool } from './workspace-tool.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-shell-tool-'));
  // Prints its arguments as JSON, one argv entry per array element, so tests see exactly what arrived.
  writeFileSync(
    join(root, 'print-argv.mjs'),
    'process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), greeting: process.env.GREETING ?? null }));\n',
  );
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function tool(file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): WorkspaceTool {
  const definition = WorkspaceToolFileSchema.parse({ name: 'probe', description: 'test tool', ...file });
  expect(checkWorkspaceTool(definition)).toBeUndefined();
  return createWorkspaceTool(definition, { file: join(root, 'probe.json'), workspaceRoot: root, env: { PATH: process.env.PATH, ...env } });
}

function argvTool(args: string[], extra: Record<string, unknown> = {}): WorkspaceTool {
  return tool({
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        files: { type: 'array', items: { type: 'string' } },
        limit: { type: 'integer', default: 10 },
      },
    },
    execution: { type: 'shell', command: [process.execPath, 'print-argv.mjs', ...args] },
    ...extra,
  });
}

function output(result: ToolResult): { argv: string[]; cwd: string; greeting: string | null } {
  expect(result.status, result.status === 'error' ? result.error : '').toBe('success');
  return JSON.parse((result as { data: string }).data) as { argv: string[]; cwd: string; greeting: string | null };
}

describe('shell workspace tools', () => {
  it('passes hostile arguments as plain text: no shell ever sees them', async () => {
    mkdirSync(join(root, 'x'));
    writeFileSync(join(root, 'x', 'keep.txt'), 'precious');
    const probe = argvTool(['${text}']);
    const attacks = [
      '; rm -rf x',
      '$(rm -rf x)',
      '`rm -rf x`',
      'a && rm -rf x',
      '| rm -rf x',
      "'; rm -rf x; echo '",
      '$(touch pwned)',
      '\n rm -rf x',
      '*',
    ];
    for (const attack of attacks) {
      expect(output(await probe.execute({ text: attack }, toolContext({ workspaceRoot: root }))).argv).toEqual([attack]);
    }
    expect(existsSync(join(root, 'x', 'keep.txt'))).toBe(true);
    expect(readdirSync(root).sort()).toEqual(['print-argv.mjs', 'x']);
  });

  it('refuses a tool file that writes an argument into the code an interpreter runs, and runs the positional form safely', async () => {
    const parameters = { type: 'object', properties: { text: { type: 'string' } } };
    const inline = WorkspaceToolFileSchema.parse({
      name: 'probe',
      description: 'x',
      parameters,
      execution: { type: 'shell', command: ['/bin/sh', '-ec', 'echo ${text} > out.txt'] },
    });
    expect(checkWorkspaceTool(inline)).toEqual({
      field: 'execution.command[2]',
      problem:
        'puts the argument "${text}" inside the code sh runs, where its quotes, ";" and "$(…)" would run as code. ' +
        'Pass it as its own element after the code, or through "execution.env", and read it from there: ["sh", "-c", "echo \\"$1\\"", "sh", "${text}"]',
    });
    for (const command of [
      [process.execPath, '-e', 'console.log("${text}")'],
      ['python3', '-c', 'print("${text}")'],
      ['bash', '-lc', 'ls ${text}'],
    ]) {
      const definition = WorkspaceToolFileSchema.parse({
        name: 'probe',
        description: 'x',
        parameters,
        execution: { type: 'shell', command },
      });
      expect(checkWorkspaceTool(definition)?.field).toBe('execution.command[2]');
    }
    // Variables and the environment are the file author's, and a value after the code is a positional parameter.
    const positional = tool({
      parameters,
      variables: { OUT: 'out.txt' },
      execution: { type: 'shell', command: ['/bin/sh', '-c', 'printf %s "$1" > ${OUT}', 'sh', '${text}'] },
    });
    expect(await positional.execute({ text: '$(touch pwned); touch pwned2' }, toolContext({ workspaceRoot: root }))).toMatchObject({
      status: 'success',
    });
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('$(touch pwned); touch pwned2');
    expect(readdirSync(root).sort()).toEqual(['out.txt', 'print-argv.mjs']);
  });

  it('refuses an argument with a NUL character instead of throwing', async () => {
    const probe = argvTool(['${text}'], {
      execution: { type: 'shell', command: [process.execPath, 'print-argv.mjs', '${text}'], env: { GREETING: '${text}' } },
    });
    expect(await probe.execute({ text: 'a\u0000b' }, toolContext({ workspaceRoot: root }))).toEqual({
      status: 'error',
      error: 'probe: "text" contains a NUL character, which no program argument or environment value can hold; nothing was run.',
    });
  });

  it('keeps a placeholder inside a larger argument one argument, and fills variables, env and defaults', async () => {
    const probe = tool(
      {
        parameters: { type: 'object', properties: { text: { type: 'string' }, limit: { type: 'integer', default: 10 } } },
        variables: { MODE: 'strict', TOKEN: '${env:PROBE_TOKEN}' },
        execution: {
          type: 'shell',
          command: [process.execPath, 'print-argv.mjs', '--message=${text} and more', '--limit', '${limit}', '${MODE}', '${TOKEN}'],
          env: { GREETING: 'hi ${text}' },
        },
      },
      { PROBE_TOKEN: 'tok-123' },
    );
    const result = output(await probe.execute({ text: 'a b; c' }, toolContext({ workspaceRoot: root })));
    expect(result.argv).toEqual(['--message=a b; c and more', '--limit', '10', 'strict', 'tok-123']);
    expect(result.greeting).toBe('hi a b; c');
  });

  it('drops a missing optional argument and spreads an array argument', async () => {
    const probe = argvTool(['add', '${files}', '--note', '${text}']);
    expect(output(await probe.execute({ files: ['a.txt', 'b c.txt', 'rf-'] }, toolContext({ workspaceRoot: root }))).argv).toEqual([
      'add',
      'a.txt',
      'b c.txt',
      'rf-',
      '--note',
    ]);
  });

  it('does not let an argument override a variable of the same name', async () => {
    const probe = tool({
      variables: { TARGET: 'safe' },
      execution: { type: 'shell', command: [process.execPath, 'print-argv.mjs', '${TARGET}'] },
    });
    expect(output(await probe.execute({ TARGET: '/etc/passwd' }, toolContext({ workspaceRoot: root }))).argv).toEqual(['safe']);
  });

  it('runs in execution.cwd, relative to the workspace root', async () => {
    mkdirSync(join(root, 'scripts'));
    const probe = tool({ execution: { type: 'shell', command: [process.execPath, '../print-argv.mjs'], cwd: 'scripts' } });
    expect(output(await probe.execute({}, toolContext({ workspaceRoot: root }))).cwd).toBe(join(root, 'scripts'));
  });

  it('turns a failing command into an error result with its exit code and stderr', async () => {
    const probe = tool({
      execution: { type: 'shell', command: [process.execPath, '-e', 'console.log("partial"); console.error("boom"); process.exit(3)'] },
    });
    const result = await probe.execute({}, toolContext({ workspaceRoot: root }));
    expect(result).toEqual({ status: 'error', error: 'probe: the command exited with code 3.\npartial\n[stderr]\nboom' });
  });

  it('reports a program that does not exist instead of throwing', async () => {
    const probe = tool({ execution: { type: 'shell', command: ['legion-no-such-program-xyz'] } });
    const result = await probe.execute({}, toolContext({ workspaceRoot: root }));
    expect(result).toMatchObject({ status: 'error', error: expect.stringContaining('"legion-no-such-program-xyz" was not found') });
  });

  it('stops a command that outlives its timeout, with what it printed so far', async () => {
    const probe = tool({
      timeoutMs: 300,
      execution: { type: 'shell', command: [process.execPath, '-e', 'console.log("started"); setInterval(() => {}, 1000)'] },
    });
    const result = await probe.execute({}, toolContext({ workspaceRoot: root }));
    expect(result).toMatchObject({ status: 'error' });
    // On a loaded machine the child may not have printed yet when the time is up; if it did, its output is kept.
    expect((result as { error: string }).error).toMatch(/^probe timed out after 300 ms and was stopped\.(\nstarted)?$/);
  });

  it('stops the command when the call is cancelled', async () => {
    const probe = tool({
      execution: { type: 'shell', command: [process.execPath, '-e', 'console.log("started"); setInterval(() => {}, 1000)'] },
    });
    const controller = new AbortController();
    const running = probe.execute({}, toolContext({ workspaceRoot: root, signal: controller.signal }));
    controller.abort();
    expect(await running).toMatchObject({ status: 'error', error: expect.stringContaining('was cancelled and stopped') });
  });

  it('returns when the program exits, ending what it left running in the background, and records it in a workspace', async () => {
    // The background sleep inherits the output pipe: without ending it, the call would wait until it exits.
    mkdirSync(join(root, '.legion'));
    // Legion records the group just after spawning it: the command waits until the record is there.
    const probe = tool({
      execution: {
        type: 'shell',
        command: [
          '/bin/sh',
          '-c',
          `sleep 300 & echo $! ${PID_NAMESPACE}; until [ -n "$(ls .legion/run/processes 2>/dev/null)" ]; do sleep 0.01; done; ls .legion/run/processes`,
        ],
      },
    });
    const result = await probe.execute({}, toolContext({ workspaceRoot: root }));
    expect(result.status).toBe('success');
    const [recorded, record] = (result as { data: string }).data.split('\n');
    // The command may run in a PID namespace of its own: its $! is found among the host's processes (none: gone).
    const pid = hostPid(recorded!) ?? 0;
    expect(record).toMatch(/^\d+-\d+\.json$/);
    // Dead: gone, or a zombie that an init which does not reap (as in some containers) keeps listed. The group was
    // signalled before the call returned; a loaded machine may take a moment to run the exit (CI saw it still 'R').
    await expect.poll(() => (pid > 0 && existsSync(`/proc/${pid}`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ') Z ')).toMatch(/\) Z /);
    // Once the group is gone, so is its record.
    expect(readdirSync(join(root, '.legion/run/processes'))).toEqual([]);
  });

  it('keeps the head and tail of a flood of output, in bounded memory', async () => {
    const probe = tool({
      execution: {
        type: 'shell',
        command: [process.execPath, '-e', 'process.stdout.write("HEAD" + "x".repeat(3 * 1024 * 1024) + "TAIL")'],
      },
    });
    const result = await probe.execute({}, toolContext({ workspaceRoot: root }));
    const text = (result as { data: string }).data;
    expect(text.startsWith('HEAD')).toBe(true);
    expect(text.endsWith('TAIL')).toBe(true);
    expect(text).toMatch(/… \[\d+ bytes cut\] …/);
    expect(text.length).toBeLessThan(1.1 * 1024 * 1024);
  });

  it('validates input against its JSON Schema parameters, naming the field', () => {
    const probe = tool({
      parameters: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1 }, mode: { enum: ['fast', 'slow'] } },
        required: ['count'],
        additionalProperties: false,
      },
      execution: { type: 'shell', command: ['true'] },
    });
    const problem = (input: unknown) => {
      const parsed = probe.inputSchema.safeParse(input);
      expect(parsed.success).toBe(false);
      return describeZodError(parsed.error!, input);
    };
    expect(problem({ count: 'ten' })).toMatchObject({ field: 'count', problem: 'must be an integer, got the string "ten"' });
    expect(problem({})).toMatchObject({ field: 'count', problem: 'must be present (it is required)' });
    expect(problem({ count: 0 })).toMatchObject({ field: 'count', problem: 'must be >= 1, got the number 0' });
    expect(problem({ count: 2, mode: 'medium' })).toMatchObject({
      field: 'mode',
      problem: 'must be one of "fast", "slow", got the string "medium"',
    });
    expect(problem({ count: 2, extra: true })).toMatchObject({ field: 'extra' });
    expect(probe.inputSchema.safeParse({ count: 2, mode: 'fast' }).success).toBe(true);
  });

  it('asks for approval by default, and runs like a read when the file says it is safe', () => {
    expect(argvTool([]).effect).toBe('shell');
    expect(argvTool([], { requiresApproval: false }).effect).toBe('read');
    expect(tool({ execution: { type: 'http', url: 'https://example.com' } }).effect).toBe('network');
  });
});
