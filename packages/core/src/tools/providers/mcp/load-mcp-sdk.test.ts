import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = fileURLToPath(new URL('../../../../dist/', import.meta.url));

describe('loadMcpSdk', () => {
  it('without the MCP client installed, says which package is missing and how to install it', () => {
    // The built module and the one it imports, copied to a folder of their own; Node resolves nothing
    // outside it (a resolve hook refuses what would come from above), as in an install without the
    // package. The temporary folder itself may be inside a checkout whose node_modules has it (CI
    // puts TMPDIR in the clone), so where the folder is must not decide the test.
    const root = mkdtempSync(join(tmpdir(), 'legion-no-mcp-'));
    try {
      for (const file of ['kernel/errors.js', 'kernel/error-codes.js', 'tools/providers/mcp/load-mcp-sdk.js']) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        cpSync(join(DIST, file), join(root, file));
      }
      const inside = pathToFileURL(root).href + '/';
      const hook = `export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        if (context.parentURL?.startsWith(${JSON.stringify(inside)}) && resolved.url.startsWith('file:') && !resolved.url.startsWith(${JSON.stringify(inside)})) {
          throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
        }
        return resolved;
      }`;
      const script = `
        const { register } = await import('node:module');
        register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
        const { loadMcpSdk } = await import(${JSON.stringify(pathToFileURL(join(root, 'tools/providers/mcp/load-mcp-sdk.js')).href)});
        const error = await loadMcpSdk().then(() => undefined, (caught) => caught);
        console.log(JSON.stringify({ code: error?.code, message: error?.message }));`;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        code: 'mcp_sdk_missing',
        message:
          'MCP servers are configured ("mcpServers"), but the "@modelcontextprotocol/client" package is not installed. Install it: npm install @modelcontextprotocol/client@2.4.0',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
