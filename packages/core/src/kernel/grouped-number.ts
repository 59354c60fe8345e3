/**
 * A number as `toLocaleString('en-US')` writes it (`32,768`; at most three decimals), without
 * `Intl`: the first locale-formatted number of a process initialises ICU, 35–55 ms of CPU on a
 * one-shot `legion run` that says one token count.
 */
export function groupedNumber(value: number): string {
  if (!Number.isFinite(value)) return value.toLocaleString('en-US');
  const rounded = Math.round(Math.abs(value) * 1000) / 1000;
  // Past 2^53 a number has no exact digits to group; Intl is right there and the cost is no matter.
  if (rounded >= Number.MAX_SAFE_INTEGER) return value.toLocaleString('en-US');
  const [whole = '0', fraction] = String(rounded).split('.');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}
