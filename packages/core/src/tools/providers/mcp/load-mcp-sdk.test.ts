import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = fileURLToPath(new URL('../../../../dist/', import.meta.url));
/** The scope of the MCP client's packages (`@modelcontextprotocol/client`, `/core`): none may load. */
const MCP_SCOPE = '@modelcontextprotocol/';

describe('loadMcpSdk', () => {
  it('without the MCP client installed, says which package is missing and how to install it', () => {
    // The built module, with a resolve hook that refuses the MCP client's packages, as in an install
    // without them. The hook refuses the package by name, not by where it would come from: the
    // checkout's node_modules has it, and so may one above a temporary folder (CI puts TMPDIR in the
    // clone), while the module still needs core's other packages (zod, through the kernel's index).
    const root = mkdtempSync(join(tmpdir(), 'legion-no-mcp-'));
    try {
      const hook = `export async function resolve(specifier, context, next) {
        if (specifier.startsWith(${JSON.stringify(MCP_SCOPE)})) {
          throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
        }
        return next(specifier, context);
      }`;
      const script = `
        const { register } = await import('node:module');
        register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
        const { loadMcpSdk } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'tools/providers/mcp/load-mcp-sdk.js')).href)});
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
