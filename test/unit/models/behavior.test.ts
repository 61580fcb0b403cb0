import { describe, expect, it } from 'vitest';
import { keepsPriorThinking, prefillUnsupported, tokenizerGeneration } from '../../../src/core/models';

describe('prefill', () => {
  it('4.6 and later need the conversation to end with a user message', () => {
    for (const id of [
      'claude-sonnet-4-6',
      'claude-opus-4-6[1m]',
      'claude-opus-4-7',
      'claude-opus-4-8',
      'claude-sonnet-5',
      'claude-opus-5',
      'claude-haiku-5-5',
    ]) {
      expect(prefillUnsupported(id)).toBe(true);
    }
    for (const id of [
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-5',
      'claude-haiku-4-5',
      'claude-opus-4-20250514',
      'claude-3-7-sonnet-20250219',
    ]) {
      expect(prefillUnsupported(id)).toBe(false);
    }
  });

  it('cannot tell without a version', () => {
    expect(prefillUnsupported('claude-mythos-preview')).toBeUndefined();
    expect(prefillUnsupported(undefined)).toBeUndefined();
  });
});

describe('tokenizer generation', () => {
  it('Opus 4.7+ and every major-5 model use the new tokenizer; the rest and unknown ids the measured one', () => {
    expect(tokenizerGeneration('claude-opus-4-6')).toBe('claude-4');
    expect(tokenizerGeneration('claude-opus-4-7')).toBe('claude-4.7');
    expect(tokenizerGeneration('claude-opus-4-8')).toBe('claude-4.7');
    expect(tokenizerGeneration('claude-sonnet-4-6')).toBe('claude-4');
    expect(tokenizerGeneration('claude-sonnet-5')).toBe('claude-4.7');
    expect(tokenizerGeneration('claude-3-7-sonnet-20250219')).toBe('claude-4');
    expect(tokenizerGeneration('claude-mythos-preview')).toBe('claude-4');
    expect(tokenizerGeneration(undefined)).toBe('claude-4');
  });
});

describe('thinking of earlier turns', () => {
  it('kept from Opus 4.5, Sonnet 4.6 and major 5 on; dropped by Sonnet 4.5 (measured), Haiku and unknown ids', () => {
    expect(keepsPriorThinking('claude-sonnet-4-5-20250929')).toBe(false);
    expect(keepsPriorThinking('claude-sonnet-4-6')).toBe(true);
    expect(keepsPriorThinking('claude-opus-4-1')).toBe(false);
    expect(keepsPriorThinking('claude-opus-4-5-20251101')).toBe(true);
    expect(keepsPriorThinking('claude-opus-4-6[1m]')).toBe(true);
    expect(keepsPriorThinking('claude-haiku-4-5')).toBe(false);
    expect(keepsPriorThinking('claude-sonnet-5')).toBe(true);
    expect(keepsPriorThinking('claude-mythos-preview')).toBe(false);
    expect(keepsPriorThinking(undefined)).toBe(false);
  });
});
