import { styleText } from 'node:util';
import { delegationDepth, indentation } from './delegation-depth.js';
import { colorEnabled, participantColour } from './style.js';
import { terminalSafe } from './terminal-text.js';

describe('participants told apart', () => {
  it('each participant keeps its colour, whatever else is in the collective; several colours are in use', () => {
    const ids = ['coordinator', 'developer', 'reviewer', 'tester', 'writer', 'researcher'];
    const first = ids.map((id) => participantColour(id));
    expect(['reviewer', 'developer', 'coordinator', 'writer', 'tester', 'researcher'].map((id) => participantColour(id))).toEqual([
      first[2],
      first[1],
      first[0],
      first[4],
      first[3],
      first[5],
    ]);
    expect(new Set(first).size).toBeGreaterThan(2);
    // Never the colours of errors and warnings.
    for (const colour of first) expect(['red', 'yellow']).not.toContain(colour);
    expect(styleText(participantColour('developer'), 'x', { validateStream: false })).not.toBe('x');
  });

  it('every participant colour is one the terminal writers let through, not shown as an escape', () => {
    for (const id of Array.from({ length: 40 }, (_, index) => `agent-${index}`)) {
      const painted = styleText(participantColour(id), id, { validateStream: false });
      expect(terminalSafe(painted)).toBe(painted);
    }
  });

  it('NO_COLOR turns the colours off, even where FORCE_COLOR would turn them on', () => {
    const terminal = { isTTY: true } as NodeJS.WriteStream;
    expect(colorEnabled(terminal, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(colorEnabled(terminal, {})).toBe(true);
  });

  it('depth: a user’s turn is at 0, each delegation one further, two spaces a level', () => {
    expect(delegationDepth(['user'])).toBe(0);
    expect(delegationDepth(['user', 'coordinator', 'developer'])).toBe(2);
    expect(delegationDepth([])).toBe(0);
    expect(indentation(2)).toBe('    ');
  });
});
