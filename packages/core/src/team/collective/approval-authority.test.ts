import { canApprove, decisionReach, reachesRequest, standInApprover } from './approval-authority.js';
import { parseParticipant, type Participant } from './participant.js';
import type { ApprovalAuthority, Policies } from './policy.js';

const agent = (policies?: Policies, approvalAuthority?: ApprovalAuthority): Participant =>
  parseParticipant({
    id: 'dev',
    type: 'agent',
    name: 'dev',
    systemPrompt: '',
    ...(policies ? { policies } : {}),
    ...(approvalAuthority ? { approvalAuthority } : {}),
  });

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

describe('standInApprover', () => {
  const human = parseParticipant({ id: 'user', type: 'user', name: 'You' });
  const people = new Map([[human.id, human]]);
  const resolve = (id: string) => people.get(id);

  it('hands what a stand-in user (an MCP client) may not approve to the human it stands in for', () => {
    const mcp = parseParticipant({ id: 'mcp', type: 'user', name: 'MCP client', approvalAuthority: 'none', actsFor: 'user' });
    expect(canApprove(mcp, 'developer', 'file_write')).toBe(false);
    expect(standInApprover(mcp, resolve, 'developer', 'file_write')?.id).toBe('user');
  });

  it('hands nothing on for a user that stands in for nobody, or to a human who may not approve it either', () => {
    expect(
      standInApprover(
        parseParticipant({ id: 'ops', type: 'user', name: 'ops', approvalAuthority: 'none' }),
        resolve,
        'developer',
        'file_write',
      ),
    ).toBeUndefined();
    expect(standInApprover(agent(), resolve, 'developer', 'file_write')).toBeUndefined();
    const strict = parseParticipant({
      id: 'user',
      type: 'user',
      name: 'You',
      approvalAuthority: [{ requester: 'reviewer', tools: ['*'] }],
    });
    const mcp = parseParticipant({ id: 'mcp', type: 'user', name: 'MCP client', approvalAuthority: 'none', actsFor: 'user' });
    expect(standInApprover(mcp, () => strict, 'developer', 'file_write')).toBeUndefined();
    // Nobody approves their own call, the human included.
    expect(standInApprover(mcp, resolve, 'user', 'file_write')).toBeUndefined();
  });
});

describe('decisionReach', () => {
  const human = parseParticipant({ id: 'user', type: 'user', name: 'You' });
  const mcp = parseParticipant({ id: 'mcp', type: 'user', name: 'MCP client', approvalAuthority: '*', actsFor: 'user' });
  const lead = agent(undefined, '*');
  const noCallers = (): boolean => false;
  const humansRun = { approver: 'user', frames: [{ participantId: 'user' }, { participantId: 'coordinator' }] };
  const clientsAsk = { approver: 'user', frames: [{ participantId: 'mcp' }, { participantId: 'coordinator' }] };

  it('lets the human step in on any request, a stand-in only on those of its own chains, an agent on those addressed to it', () => {
    expect(decisionReach(human, noCallers)).toBe('any');
    expect(reachesRequest('any', 'user', clientsAsk)).toBe(true);
    expect(decisionReach(mcp, noCallers)).toBe('own-chain');
    expect(reachesRequest('own-chain', 'mcp', humansRun)).toBe(false);
    expect(reachesRequest('own-chain', 'mcp', clientsAsk)).toBe(true);
    expect(reachesRequest('own-chain', 'mcp', { ...humansRun, approver: 'mcp' })).toBe(true);
    expect(decisionReach(lead, noCallers)).toBe('addressed');
    expect(reachesRequest('addressed', 'dev', clientsAsk)).toBe(false);
    expect(reachesRequest('addressed', 'dev', { ...clientsAsk, approver: 'dev' })).toBe(true);
  });

  it('treats a user that comes from config rather than the roster as a stand-in, even one that stands in for nobody', () => {
    const caller = parseParticipant({ id: 'mcp', type: 'user', name: 'MCP client' });
    expect(decisionReach(caller, (id) => id === 'mcp')).toBe('own-chain');
    expect(decisionReach(caller, noCallers)).toBe('any');
  });
});
