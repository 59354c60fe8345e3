import { agentParticipant, createTestLegion, userParticipant } from '../../testing/test-collective.js';

describe('legion.describeTools', () => {
  it('shows what the model is shown, hides the rest with the reason, and gives each tool its standing approval', async () => {
    const test = createTestLegion({
      participants: [
        userParticipant(),
        {
          id: 'writer',
          type: 'agent',
          name: 'Writer',
          systemPrompt: 'You write.',
          tools: ['file_*', 'communicate'],
          delegation: 'none',
          policies: { file_delete: 'deny', file_write: { mode: 'requires_approval', rules: [{ mode: 'auto', paths: ['notes/**'] }] } },
        },
        agentParticipant('lead', { tools: 'all', delegation: ['writer'] }),
      ],
    });
    try {
      const view = await test.legion.describeTools('writer');
      const tool = (name: string) => view.tools.find((entry) => entry.name === name);
      const visible = view.tools.filter((entry) => entry.visible).map((entry) => entry.name);
      // Exactly the model's own tool list (list_tools reports it the same way).
      expect(visible).toEqual(['file_delete', 'file_edit', 'file_glob', 'file_grep', 'file_list', 'file_read', 'file_write']);
      expect(tool('file_read')).toMatchObject({
        source: 'builtin',
        effect: 'read',
        approval: { mode: 'auto', source: 'default', scoped: false },
      });
      expect(tool('file_write')).toMatchObject({
        approval: { mode: 'requires_approval', source: 'participant writer "file_write"', scoped: true },
      });
      expect(tool('file_delete')).toMatchObject({ visible: true, approval: { mode: 'deny' } });
      expect(tool('communicate')).toMatchObject({
        visible: false,
        source: 'builtin',
        hiddenBecause: expect.stringContaining('nobody to talk to'),
      });
      expect(tool('shell_run')).toMatchObject({ visible: false, hiddenBecause: 'not in its "tools" (["file_*","communicate"])' });
      expect(view.missing).toEqual([]);
      expect((await test.legion.describeTools('lead')).tools.find((entry) => entry.name === 'communicate')?.visible).toBe(true);
      await expect(test.legion.describeTools('user')).rejects.toThrow(/is a user, not an agent/);
    } finally {
      await test.cleanup();
    }
  });
});
