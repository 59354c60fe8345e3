import { sandboxLine } from '@legion-collective/core';
import { sandboxText } from './sandbox-text.js';

describe("the browser card's sandbox line", () => {
  it("is core's line, for each way a command may run", () => {
    for (const kind of ['sandboxed', 'unsandboxed', 'refused'] as const) {
      const note = { kind, detail: `why ${kind}` };
      expect(sandboxText(note)).toBe(sandboxLine(note));
    }
  });
});
