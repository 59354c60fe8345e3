import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LegionError } from '@legion-collective/core';

/** A token file is one line; anything far longer is not one (and is not read whole). */
const MAX_TOKEN_FILE_BYTES = 4096;

export interface AccessTokenSources {
  /** `--token T`: seen by every user of the machine in the process list (`ps`, /proc/PID/cmdline). */
  flag?: string | undefined;
  /** `--token-file PATH`: the token is the file's first line. */
  file?: string | undefined;
  /** The environment variable that may hold it (`LEGION_SERVE_TOKEN`, `LEGION_MCP_TOKEN`). */
  envName: string;
  env: NodeJS.ProcessEnv;
  /** Where warnings go (standard error). */
  warn(line: string): void;
}

function readTokenFile(path: string): string {
  let descriptor: number;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer, for ever.
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new LegionError(
      'usage',
      `--token-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): give the path of a file that holds the token.`,
    );
  }
  try {
    const stat = fstatSync(descriptor);
    // A FIFO or a device would block or never end: a token lives in a regular file.
    if (!stat.isFile())
      throw new LegionError('usage', `--token-file ${path} is not a regular file: write the token into a file and give its path.`);
    if (stat.size > MAX_TOKEN_FILE_BYTES)
      throw new LegionError(
        'usage',
        `--token-file ${path} is ${stat.size} bytes: a token file holds one line (at most ${MAX_TOKEN_FILE_BYTES} bytes).`,
      );
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(descriptor, buffer, 0, stat.size, 0);
    const token = buffer.subarray(0, read).toString('utf8').split(/\r?\n/)[0]!.trim();
    if (token === '') throw new LegionError('usage', `--token-file ${path} is empty: write the token on its first line.`);
    return token;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The access token a server requires: `--token-file`, else the environment variable, else
 * `--token` (said on standard error to be visible to every user of the machine), else none.
 * Refused when shorter than 16 characters.
 */
export function accessTokenFrom(sources: AccessTokenSources): string | undefined {
  const { flag, file, envName, env } = sources;
  if (flag !== undefined && file !== undefined)
    throw new LegionError(
      'usage',
      '--token and --token-file both give the access token: keep one (--token-file, or the environment variable, keeps it out of the process list).',
    );
  let token: string | undefined;
  if (file !== undefined) token = readTokenFile(file);
  else if (flag !== undefined) {
    sources.warn(
      `legion: warning: --token is visible to every user of this machine in the process list (ps); give the token with ${envName} or --token-file PATH instead.`,
    );
    token = flag;
  } else token = env[envName] || undefined;
  if (token !== undefined && token.length < 16) {
    throw new LegionError(
      'usage',
      `The access token (--token, --token-file or ${envName}) is shorter than 16 characters: use a longer one, or leave it out for a random one.`,
    );
  }
  return token;
}
