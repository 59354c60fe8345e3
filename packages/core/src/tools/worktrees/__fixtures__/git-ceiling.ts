import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';

/**
 * For the suite it is called in: git looks for a repository no higher than `folder` (by default the
 * temporary folder), as `GIT_CEILING_DIRECTORIES` says. A workspace a test makes there is then in
 * no git repository unless the test makes one, even where the temporary folder is inside one (CI's
 * TMPDIR is inside the clone).
 */
export function useGitCeiling(folder: () => string = tmpdir): void {
  const ceiling = process.env['GIT_CEILING_DIRECTORIES'];
  beforeAll(() => {
    process.env['GIT_CEILING_DIRECTORIES'] = folder();
  });
  afterAll(() => {
    if (ceiling === undefined) delete process.env['GIT_CEILING_DIRECTORIES'];
    else process.env['GIT_CEILING_DIRECTORIES'] = ceiling;
  });
}
