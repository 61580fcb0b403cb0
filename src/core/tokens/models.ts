/**
 * Model-dependent facts the estimator needs: which tokenizer generation a
 * model belongs to (calibration is pooled per generation) and whether the API
 * still counts thinking blocks of earlier turns.
 */
import type { ContentBlockParam, MessageParam } from '../session/types';

/** Calibration key of a model: date and context-size suffixes dropped (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`). */
export function modelKey(model: string | undefined): string {
  if (!model) return DEFAULT_MODEL_KEY;
  return model
    .trim()
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '') // Claude Code's `[1m]` context suffix
    .replace(/-(\d{8}|latest)$/, '');
}

/** Key used when the host does not say which model it talks to. */
export const DEFAULT_MODEL_KEY = 'default';

export type TokenizerGeneration = 'claude-4' | 'claude-4.7';

interface ParsedModel {
  family: string;
  major: number;
  minor: number;
}

function parse(key: string): ParsedModel | undefined {
  // claude-sonnet-4-5, claude-opus-4-7, claude-sonnet-5, claude-3-7-sonnet (old order)
  const m = /^claude-(opus|sonnet|haiku|[a-z]+)-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(key);
  if (m) return { family: m[1], major: Number(m[2]), minor: Number(m[3] ?? 0) };
  const old = /^claude-(\d+)(?:-(\d))?-([a-z]+)/.exec(key);
  if (old) return { family: old[3], major: Number(old[1]), minor: Number(old[2] ?? 0) };
  return undefined;
}

function atLeast(p: ParsedModel, major: number, minor: number): boolean {
  return p.major > major || (p.major === major && p.minor >= minor);
}

/**
 * Tokenizer generation. The reference says Opus 4.7+ uses a new tokenizer
 * (~30% more tokens); we assume every model from major version 5 on shares it.
 * Unknown ids fall back to the measured generation (`claude-4`); calibration
 * corrects either way within a few calls.
 */
export function tokenizerGeneration(model: string | undefined): TokenizerGeneration {
  const p = parse(modelKey(model));
  if (!p) return 'claude-4';
  if (p.major >= 5 || (p.family === 'opus' && atLeast(p, 4, 7))) return 'claude-4.7';
  return 'claude-4';
}

/**
 * Does the API keep counting thinking blocks of earlier turns? Measured on the
 * transcripts (test/bench/tokens.ts): claude-sonnet-4-5 drops all thinking of
 * earlier assistant turns when a new human turn starts (the total input even
 * shrinks), claude-opus-4-5 keeps it. Per Anthropic's docs preservation is the
 * default from Opus 4.5 on; we assume the same for Sonnet ≥ 4.6 and major ≥ 5.
 */
export function keepsPriorThinking(model: string | undefined): boolean {
  const p = parse(modelKey(model));
  if (!p) return false;
  if (p.major >= 5) return true;
  if (p.family === 'opus') return atLeast(p, 4, 5);
  if (p.family === 'sonnet') return atLeast(p, 4, 6);
  return false;
}

/** A user message that starts a new turn: anything besides tool results (a tool-result-only message continues the agent loop). */
export function isHumanTurn(m: MessageParam): boolean {
  if (m.role !== 'user') return false;
  if (typeof m.content === 'string') return true;
  return m.content.some((b) => b.type !== 'tool_result');
}

/**
 * Thinking blocks the API does not count in a request made of `messages`:
 * on models that drop earlier turns' thinking, every thinking block before the
 * last human turn. The returned set holds the block objects themselves.
 */
export function uncountedThinking(messages: readonly MessageParam[], model: string | undefined): Set<ContentBlockParam> {
  const out = new Set<ContentBlockParam>();
  if (keepsPriorThinking(model)) return out;
  let lastHuman = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isHumanTurn(messages[i])) {
      lastHuman = i;
      break;
    }
  }
  for (let i = 0; i < lastHuman; i++) {
    const c = messages[i].content;
    if (messages[i].role !== 'assistant' || typeof c === 'string') continue;
    for (const b of c) if (b.type === 'thinking' || b.type === 'redacted_thinking') out.add(b);
  }
  return out;
}
