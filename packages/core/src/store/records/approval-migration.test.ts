import type { ApprovalRecord } from './approval-records.js';
import { APPROVAL_LOG } from '../record-log-formats.js';
import { ApprovalState } from '../SessionApprovals.js';

const request = (fields: Record<string, unknown>) => ({
  kind: 'request',
  version: 1,
  at: '2026-01-01T00:00:00.000Z',
  batchId: 'b',
  requester: 'developer',
  approver: 'user',
  tool: 'write_note',
  input: {},
  toolUseId: 'd1',
  conversationId: 'coordinator__developer',
  reason: 'write tools need approval by default',
  ...fields,
});
const link = (parent: string, toolUseId: string, child: string) => ({
  kind: 'link',
  version: 1,
  at: '2026-01-01T00:00:00.000Z',
  parentConversationId: parent,
  toolUseId,
  childConversationId: child,
});

describe('approval requests of version 1, read by this Legion', () => {
  /** The approvals log read in one pass, as every backend reads it, and folded as every caller sees it. */
  function storeWith(lines: unknown[]): ApprovalState {
    const read = APPROVAL_LOG.reader();
    const records: ApprovalRecord[] = [];
    for (const line of lines) {
      const reading = read(JSON.parse(JSON.stringify(line)));
      if (!reading.ok) throw new Error(reading.problem);
      if (reading.record) records.push(reading.record);
    }
    return new ApprovalState(records);
  }

  it('take their frames from the links written before them, the latest between the right two participants', () => {
    const store = storeWith([
      link('user__coordinator', 'c0', 'coordinator__developer'),
      link('lead__coordinator', 'c1', 'coordinator__developer'),
      link('user__lead', 'l1', 'lead__coordinator'),
      request({ id: 'apr_1', chain: ['user', 'lead', 'coordinator'] }),
      // Written after the request: not what it waited through.
      link('lead__coordinator', 'c9', 'coordinator__developer'),
    ]);
    expect(store.request('apr_1')).toMatchObject({
      version: 2,
      frames: [
        { participantId: 'user', conversationId: 'user__lead' },
        { participantId: 'lead', conversationId: 'user__lead', toolUseId: 'l1' },
        { participantId: 'coordinator', conversationId: 'lead__coordinator', toolUseId: 'c1' },
      ],
    });
    expect(store.delegateOf('lead__coordinator', 'c1')).toBe('coordinator__developer');
    expect(store.delegateOf('user__lead', 'l1')).toBe('lead__coordinator');
  });

  it('keep every waiting participant when a link is missing (a damaged log), without a call to climb through', () => {
    const store = storeWith([request({ id: 'apr_1', chain: ['user', 'lead', 'coordinator'] })]);
    expect(store.request('apr_1')).toMatchObject({
      frames: [
        { participantId: 'user', conversationId: 'coordinator__developer' },
        { participantId: 'lead', conversationId: 'coordinator__developer' },
        { participantId: 'coordinator', conversationId: 'coordinator__developer' },
      ],
    });
    expect(store.request('apr_1')!.frames.some((frame) => frame.toolUseId)).toBe(false);
  });
});
