import { formatKey, parseKey, setAt } from './config-keys.js';

describe('config keys', () => {
  it('reads dotted names and bracketed names that hold dots, and writes them back the same way', () => {
    expect(parseKey('limits.maxDepth')).toEqual(['limits', 'maxDepth']);
    expect(parseKey('pricing["gpt-4.1"].input')).toEqual(['pricing', 'gpt-4.1', 'input']);
    expect(parseKey('policies.file_*')).toEqual(['policies', 'file_*']);
    expect(formatKey(['pricing', 'gpt-4.1', 'input'])).toBe('pricing["gpt-4.1"].input');
    for (const bad of ['', '.a', 'a.', 'a..b', 'a["b"c', 'a[b]']) expect(() => parseKey(bad), bad).toThrow(/not a config key/);
  });

  it('sets a value without touching its neighbours, and refuses to go through a value that is not an object', () => {
    expect(setAt({ limits: { maxDepth: 5 }, entryAgent: 'x' }, ['limits', 'maxIterations'], 9)).toEqual({
      limits: { maxDepth: 5, maxIterations: 9 },
      entryAgent: 'x',
    });
    expect(() => setAt({ entryAgent: 'x' }, ['entryAgent', 'name'], 1)).toThrow(/not an object/);
  });
});
