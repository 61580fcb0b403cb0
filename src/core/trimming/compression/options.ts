/**
 * Options of the LLM history compression strategies (`whole-history`,
 * `last-n-messages`, `chunked`, `retrieve-facts`): defaults, docs for
 * `trimline strategies`, and a strict parser (unknown options and wrong types
 * are one clear error line, as for the other strategies).
 */
import type { StrategyDoc, StrategyOptionDoc, Trigger } from '../types';

export const COMPRESSION_KINDS = ['whole-history', 'last-n-messages', 'chunked', 'retrieve-facts'] as const;
export type CompressionKind = (typeof COMPRESSION_KINDS)[number];

export function isCompressionKind(name: string): name is CompressionKind {
  return (COMPRESSION_KINDS as readonly string[]).includes(name);
}

/** A concept whose facts `retrieve-facts` keeps: one fact (`single`) or a list (`multiple`). */
export interface Concept {
  readonly keyword: string;
  readonly description: string;
  readonly factType: 'single' | 'multiple';
}

export interface CompressionOptions {
  /** Earlier compression summaries are carried verbatim into the next one (chunked: kept as they are). */
  preserveMemory: boolean;
  /** The first user prompt of the conversation (the original task) stays verbatim. */
  keepFirstPrompt: boolean;
  /**
   * The latest user prompt and everything after it stay verbatim. When false, only the latest prompt and the last
   * `keepRecentMessages` messages do.
   */
  keepCurrentTurn: boolean;
  keepRecentMessages: number;
  /** last-n-messages: messages the summary is made from; chunked: messages per chunk. */
  n: number;
  /** retrieve-facts: what to keep. */
  concepts: Concept[];
  /** Automatic runs only: the new content of a range must be at least this many tokens to be worth a model call. */
  minTokens: number;
  /** max_tokens of each summarization call. */
  maxSummaryTokens: number;
  /** Budget of the transcript sent to the summarizer (estimated tokens); long tool results are cut first. */
  maxInputTokens: number;
  /** Above the trigger without a prepareAsync call: summarize in the background, propose when the text is ready. */
  background: boolean;
  trigger: Trigger;
}

/**
 * Default trigger: 80% of the context window (Claude Code compacts at ≈83%, Cline ≈81%,
 * Copilot 75% in the background): late enough that compression is rare, early enough that
 * the summarization call itself and the next turns still fit.
 */
export const COMPRESSION_TRIGGER_FRACTION = 0.8;

/** Concepts of `retrieve-facts` when none are configured: what a coding agent needs to go on. */
export const DEFAULT_CONCEPTS: readonly Concept[] = [
  { keyword: 'task', description: "the user's goal, requirements and what counts as done", factType: 'single' },
  {
    keyword: 'files',
    description: 'files read, created or changed, and what matters about each',
    factType: 'multiple',
  },
  {
    keyword: 'decisions',
    description: 'decisions made and constraints or preferences the user stated',
    factType: 'multiple',
  },
  { keyword: 'errors', description: 'errors met, their causes, and whether they were fixed', factType: 'multiple' },
  { keyword: 'progress', description: 'where the work stands and the next step', factType: 'single' },
];

const BASE: Omit<CompressionOptions, 'n' | 'concepts'> = {
  preserveMemory: true,
  keepFirstPrompt: true,
  keepCurrentTurn: true,
  keepRecentMessages: 6,
  // A summary costs a call and ~1k output tokens: below ~2k tokens of new content it is not worth it.
  minTokens: 2_000,
  maxSummaryTokens: 2_048,
  maxInputTokens: 100_000,
  background: true,
  trigger: { kind: 'above', fraction: COMPRESSION_TRIGGER_FRACTION },
};

/** Koog's examples: FromLastNMessages(10), Chunked(20). */
const KIND_DEFAULTS: Record<CompressionKind, Partial<CompressionOptions>> = {
  'whole-history': {},
  'last-n-messages': { n: 10 },
  chunked: { n: 20 },
  'retrieve-facts': { concepts: [...DEFAULT_CONCEPTS] },
};

export function compressionDefaults(kind: CompressionKind): CompressionOptions {
  return { n: 0, concepts: [], ...BASE, ...KIND_DEFAULTS[kind] };
}

/** Options a kind accepts (n only where it means something, concepts only for facts). */
function knownOptions(kind: CompressionKind): string[] {
  const common = [
    'preserveMemory',
    'keepFirstPrompt',
    'keepCurrentTurn',
    'keepRecentMessages',
    'minTokens',
    'maxSummaryTokens',
    'maxInputTokens',
    'background',
  ];
  if (kind === 'last-n-messages' || kind === 'chunked') common.push('n');
  if (kind === 'retrieve-facts') common.push('concepts');
  return common;
}

function parseTrigger(v: unknown, name: string): Trigger {
  if (v === 'always') return { kind: 'always' };
  if (typeof v === 'number' && v > 0 && v <= 1) return { kind: 'above', fraction: v };
  throw new Error(`${name}: trigger must be "always" or a fraction of the context window in (0, 1]`);
}

function parseConcepts(v: unknown, name: string): Concept[] {
  const bad =
    `${name}: option "concepts" must be a non-empty list of ` +
    '{keyword, description, factType: "single" | "multiple"}';
  if (!Array.isArray(v) || v.length === 0) throw new Error(bad);
  const seen = new Set<string>();
  return v.map((c: unknown) => {
    if (!c || typeof c !== 'object') throw new Error(bad);
    const { keyword, description, factType } = c as Record<string, unknown>;
    if (
      typeof keyword !== 'string' ||
      !keyword.trim() ||
      typeof description !== 'string' ||
      (factType !== 'single' && factType !== 'multiple')
    )
      throw new Error(bad);
    if (seen.has(keyword.trim().toLowerCase())) throw new Error(`${name}: concept "${keyword}" is listed twice`);
    seen.add(keyword.trim().toLowerCase());
    return { keyword: keyword.trim(), description: description.trim(), factType };
  });
}

const POSITIVE_INTS = new Set(['n', 'maxSummaryTokens', 'maxInputTokens']);

/** Defaults + user options, validated. Throws one clear line on an unknown option or a wrong type. */
export function parseCompressionOptions(kind: CompressionKind, opts: Record<string, unknown>): CompressionOptions {
  const out = compressionDefaults(kind);
  const known = knownOptions(kind);
  const record = out as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(opts)) {
    if (k === 'trigger') {
      out.trigger = parseTrigger(v, kind);
      continue;
    }
    if (!known.includes(k)) throw new Error(`${kind}: unknown option "${k}" (known: ${known.join(', ')})`);
    if (k === 'concepts') {
      out.concepts = parseConcepts(v, kind);
      continue;
    }
    const want = typeof record[k];
    if (typeof v !== want)
      throw new Error(`${kind}: option "${k}" must be a ${want}, got ${Array.isArray(v) ? 'array' : typeof v}`);
    if (
      typeof v === 'number' &&
      (!Number.isFinite(v) || v < 0 || (POSITIVE_INTS.has(k) && (v < 1 || !Number.isInteger(v))))
    ) {
      throw new Error(
        `${kind}: option "${k}" must be a ${POSITIVE_INTS.has(k) ? 'positive integer' : 'non-negative number'}`,
      );
    }
    record[k] = v;
  }
  return out;
}

function optionDocs(kind: CompressionKind): StrategyOptionDoc[] {
  const d = compressionDefaults(kind);
  const docs: StrategyOptionDoc[] = [
    {
      name: 'preserveMemory',
      type: 'boolean',
      default: d.preserveMemory,
      description:
        kind === 'chunked'
          ? 'earlier chunk summaries stay as they are (false: they are re-chunked with the new messages)'
          : 'earlier compression summaries are carried verbatim into the new one instead of being lost',
    },
    {
      name: 'keepFirstPrompt',
      type: 'boolean',
      default: d.keepFirstPrompt,
      description: 'the first user prompt (the original task) stays verbatim',
    },
    {
      name: 'keepCurrentTurn',
      type: 'boolean',
      default: d.keepCurrentTurn,
      description:
        'the latest prompt and the current turn stay verbatim (false: only the last keepRecentMessages messages)',
    },
    {
      name: 'keepRecentMessages',
      type: 'number',
      default: d.keepRecentMessages,
      description: 'messages kept verbatim when keepCurrentTurn is false',
    },
  ];
  if (kind === 'last-n-messages')
    docs.push({
      name: 'n',
      type: 'number',
      default: d.n,
      description: 'the summary is made from the last n messages of the compressed range; older ones are dropped',
    });
  if (kind === 'chunked')
    docs.push({
      name: 'n',
      type: 'number',
      default: d.n,
      description: 'messages per chunk; each chunk gets its own summary',
    });
  if (kind === 'retrieve-facts') {
    docs.push({
      name: 'concepts',
      type: 'string[]',
      default: d.concepts,
      description: 'list of {keyword, description, factType: "single" | "multiple"} objects: the facts kept',
    });
  }
  docs.push(
    {
      name: 'minTokens',
      type: 'number',
      default: d.minTokens,
      description: 'automatic runs: new content needed to be worth a summarization call',
    },
    {
      name: 'maxSummaryTokens',
      type: 'number',
      default: d.maxSummaryTokens,
      description: 'max_tokens of each summarization call',
    },
    {
      name: 'maxInputTokens',
      type: 'number',
      default: d.maxInputTokens,
      description: 'transcript budget of the summarization call (long tool results are cut first)',
    },
    {
      name: 'background',
      type: 'boolean',
      default: d.background,
      description: 'without prepareAsync: summarize in the background and apply when ready',
    },
  );
  return docs;
}

const SUMMARIES: Record<CompressionKind, string> = {
  'whole-history':
    'LLM summary (TL;DR) of the whole history before the current turn; ' +
    'first prompt, pins and current turn stay verbatim. Default trigger 0.8.',
  'last-n-messages':
    'LLM summary made from the last n messages before the current turn only; ' +
    'the older ones are dropped (their memory is carried with preserveMemory).',
  chunked:
    'LLM summary per chunk of n messages; with preserveMemory, earlier chunks stay ' +
    'and only new full chunks are summarized (cache-friendly).',
  'retrieve-facts':
    'LLM extraction of facts about configured concepts (single or multiple) ' +
    'in place of the history before the current turn.',
};

export const COMPRESSION_DOCS: readonly StrategyDoc[] = COMPRESSION_KINDS.map((k) => ({
  name: k,
  summary: SUMMARIES[k],
  options: optionDocs(k),
}));
