import { groupedNumber } from './grouped-number.js';

describe('groupedNumber', () => {
  it('writes what toLocaleString("en-US") writes', () => {
    const values = [
      0, -0, 1, 7, 12, 999, 1000, 1001, 32_768, 200_000, 1_047_576, 12_345_678_901, -4096, 0.5, 1.25, 2.0004, 2.0005, 1234.5678, -0.0001,
      999.9996,
    ];
    for (const value of values) expect(groupedNumber(value)).toBe(value.toLocaleString('en-US'));
  });

  it('leaves what is not a plain number to Intl', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(groupedNumber(value)).toBe(value.toLocaleString('en-US'));
  });
});
