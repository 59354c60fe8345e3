import { mcpToolName } from './mcp-tool-name.js';

describe('MCP tool names', () => {
  it('joins server and tool, replacing characters model APIs refuse and keeping long names unique and stable', () => {
    expect(mcpToolName('github', 'search_issues')).toBe('mcp__github__search_issues');
    expect(mcpToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
    expect(mcpToolName('docs', 'pages.read/v2')).toBe('mcp__docs__pages_read_v2');
    const long = mcpToolName('server', 'x'.repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toBe(mcpToolName('server', 'x'.repeat(80)));
    expect(long).not.toBe(mcpToolName('server', `${'x'.repeat(79)}y`));
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
