import { plainText } from './plain-text.js';

describe('plainText', () => {
  it('keeps the words of markdown and drops its marks', () => {
    expect(plainText('Which **database** should we use: `Postgres` or [SQLite](https://sqlite.org)?')).toBe(
      'Which database should we use: Postgres or SQLite?',
    );
    expect(plainText('Two:\n\n- one\n- _two_')).toBe('Two: one two');
    expect(plainText('plain words')).toBe('plain words');
  });
});
