import { prepareCommandProcess } from './start-up.js';

/**
 * Runs a command and turns failures into one clear line on stderr and a
 * non-zero exit code. Legion's own errors already say what is wrong and how to
 * fix it; a stack trace is shown only with LEGION_DEBUG=1.
 */
export async function runCli(command: () => Promise<number | void>): Promise<void> {
  await prepareCommandProcess();
  try {
    const code = await command();
    process.exitCode = code ?? 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`legion: ${message}\n`);
    if (process.env.LEGION_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}
