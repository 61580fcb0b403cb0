/** Formats for the webviews (tokens and dollars share the core's formatting). */
export { fmtTokens, fmtUsd } from '../../src/core/inspect/format';

/** 0.4567 → "45.7%". */
export function fmtPct(x: number, digits = 1): string {
  return `${(x * 100).toFixed(digits)}%`;
}

/** 12345 → "12,345". */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
