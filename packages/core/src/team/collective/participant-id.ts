/** Participant ids and conversation names share one safe alphabet; `__` separates the parts. */
const PART_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]|_(?!_))*$/;

export function isValidIdPart(value: string): boolean {
  return PART_PATTERN.test(value) && !value.endsWith('_') && value.length <= 64;
}
