import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_KEY,
  canonicalModelId,
  isAtLeast,
  modelGeneration,
  modelKey,
  normalizeModelId,
} from '../../../src/core/models';

describe('normalizeModelId', () => {
  it('drops dates, -latest, the [1m] suffix, provider prefixes and versions, case and spaces', () => {
    expect(normalizeModelId('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(normalizeModelId('claude-opus-4-6[1m]')).toBe('claude-opus-4-6');
    expect(normalizeModelId('claude-3-7-sonnet-latest')).toBe('claude-3-7-sonnet');
    expect(normalizeModelId('us.anthropic.claude-opus-4-6-v1:0')).toBe('claude-opus-4-6');
    expect(normalizeModelId('anthropic.claude-3-5-sonnet-20241022-v2:0')).toBe('claude-3-5-sonnet');
    expect(normalizeModelId('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(normalizeModelId('  Claude-Opus-4-1-20250805 ')).toBe('claude-opus-4-1');
    expect(normalizeModelId('claude-mythos-preview')).toBe('claude-mythos-preview');
    expect(normalizeModelId('')).toBe('');
  });
});

describe('modelGeneration', () => {
  it('parses new, old, dated and provider-qualified ids', () => {
    expect(modelGeneration('claude-sonnet-4-5-20250929')).toEqual({ family: 'sonnet', major: 4, minor: 5 });
    expect(modelGeneration('claude-opus-4-20250514')).toEqual({ family: 'opus', major: 4, minor: 0 });
    expect(modelGeneration('claude-opus-4-0')).toEqual({ family: 'opus', major: 4, minor: 0 });
    expect(modelGeneration('claude-sonnet-5')).toEqual({ family: 'sonnet', major: 5, minor: 0 });
    expect(modelGeneration('claude-3-5-haiku-20241022')).toEqual({ family: 'haiku', major: 3, minor: 5 });
    expect(modelGeneration('claude-3-haiku-20240307')).toEqual({ family: 'haiku', major: 3, minor: 0 });
    expect(modelGeneration('us.anthropic.claude-opus-4-6-v1:0')).toEqual({ family: 'opus', major: 4, minor: 6 });
    expect(modelGeneration('claude-opus-4-6[1m]')).toEqual({ family: 'opus', major: 4, minor: 6 });
  });

  it('has no generation for ids without a version', () => {
    expect(modelGeneration('claude-mythos-preview')).toBeUndefined();
    expect(modelGeneration('gpt-4o')).toBeUndefined();
    expect(modelGeneration('')).toBeUndefined();
  });

  it('compares versions', () => {
    const g = { family: 'opus', major: 4, minor: 6 };
    expect(isAtLeast(g, 4, 6)).toBe(true);
    expect(isAtLeast(g, 4, 7)).toBe(false);
    expect(isAtLeast(g, 3, 9)).toBe(true);
    expect(isAtLeast(g, 5, 0)).toBe(false);
  });
});

describe('canonicalModelId and modelKey', () => {
  it('reduce every spelling of one model to one id (minor 0 omitted, like the API ids)', () => {
    for (const id of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-sonnet-4-5@20250929',
      'claude-sonnet-4-5[1m]',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]) {
      expect(canonicalModelId(id)).toBe('claude-sonnet-4-5');
    }
    expect(canonicalModelId('claude-opus-4-6[1m]')).toBe('claude-opus-4-6');
    expect(canonicalModelId('claude-opus-4-20250514')).toBe('claude-opus-4');
    expect(canonicalModelId('claude-opus-4-0')).toBe('claude-opus-4');
    expect(canonicalModelId('claude-3-7-sonnet-latest')).toBe('claude-sonnet-3-7');
    expect(canonicalModelId('claude-sonnet-5')).toBe('claude-sonnet-5');
    expect(canonicalModelId('Claude-Mythos-Preview')).toBe('claude-mythos-preview');
  });

  it('modelKey names the calibration key, with a default when no model is named', () => {
    expect(modelKey('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(modelKey('claude-opus-4-6[1m]')).toBe('claude-opus-4-6');
    expect(modelKey(undefined)).toBe(DEFAULT_MODEL_KEY);
    expect(modelKey('  ')).toBe(DEFAULT_MODEL_KEY);
  });
});
