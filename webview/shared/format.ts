/** Formats for the webviews (tokens and dollars share the core's formatting). */
export { fmtTokens, fmtUsd } from '../../src/protocol/format';

/** 0.4567 → "45.7%". */
export function fmtPct(x: number, digits = 1): string {
  return `${(x * 100).toFixed(digits)}%`;
}

/** One formatter (`toLocaleString` makes a new one per call, a measurable part of a live update). */
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12345 → "12,345". */
export function fmtInt(n: number): string {
  return INT.format(Math.round(n));
}
