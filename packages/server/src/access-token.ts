import { randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: what `legion serve` prints in its URL unless given one. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares in constant time: a token must not leak through how long a refusal takes. */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const TOKEN_COOKIE = 'legion_token';
