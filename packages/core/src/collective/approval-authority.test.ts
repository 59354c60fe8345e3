import { canApprove } from './approval-authority.js';
import { parseParticipant, type Participant } from './participant.js';
import type { ApprovalAuthority, Policies } from './policy.js';

const agent = (policies?: Policies, approvalAuthority?: ApprovalAuthority): Participant =>
  parseParticipant({ id: 'dev', type: 'agent', name: 'dev', systemPrompt: '', ...(policies ? { policies } : {}), ...(approvalAuthority ? { approvalAuthority } : {}) });

describe('canApprove', () => {
  it('users approve everything by default, agents nothing, and rules scope by requester and tool', () => {
    const user = parseParticipant({ id: 'me', type: 'user', name: 'me' });
    expect(canApprove(user, 'dev', 'shell_run')).toBe(true);
    expect(canApprove(agent(), 'other', 'file_write')).toBe(false);
    const lead = agent(undefined, [{ requester: 'dev*', tools: ['file_*'] }]);
    expect(canApprove(lead, 'developer', 'file_write')).toBe(true);
    expect(canApprove(lead, 'developer', 'shell_run')).toBe(false);
    expect(canApprove(lead, 'reviewer', 'file_write')).toBe(false);
    expect(canApprove(agent(undefined, '*'), 'anyone', 'anything')).toBe(true);
  });
});
