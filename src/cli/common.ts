/** Shared CLI plumbing: errors that end in one clear line and an exit code, config loading. */
import { readFileSync } from 'node:fs';
import type { PipelineConfig } from '../core/trimming';

/** A problem with the user's input: printed as one line, exit code 2, no stack trace. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** An fs error's code (ENOENT, EACCES…), else its message. */
export function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
}

export function loadConfig(file: string | undefined): PipelineConfig {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${file}: cannot read config: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('expected a JSON object {"strategies": {...}, "cacheAware": {...}}');
    return parsed as PipelineConfig;
  } catch (e) {
    throw new UsageError(`${file}: invalid config: ${(e as Error).message}`);
  }
}

export function usd(n: number): string {
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(3)}`;
}

export function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

export function padStart(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}
