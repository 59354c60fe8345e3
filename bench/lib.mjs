// Small helpers shared by the bench scripts (not a bench itself).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

export const median = (values) => quantile(values, 0.5);
export const p95 = (values) => quantile(values, 0.95);
export const min = (values) => Math.min(...values);
export const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Milliseconds with a precision that suits the magnitude. */
export function ms(value) {
  if (!Number.isFinite(value)) return String(value);
  if (value < 0.1) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 10) return `${value.toFixed(3)} ms`;
  if (value < 100) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(0)} ms`;
}

export const round = (value, digits = 4) => Number(value.toFixed(digits));

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `legion-bench-${prefix}-`));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/** One machine-readable line per bench, which run-all.mjs collects for its summary. */
export function printJson(bench, figures) {
  process.stdout.write(`BENCH_JSON ${JSON.stringify({ bench, ...figures })}\n`);
}

export function verdict(value, target) {
  return value <= target ? `OK (target ≤ ${target} ms)` : `OVER TARGET (target ≤ ${target} ms)`;
}
