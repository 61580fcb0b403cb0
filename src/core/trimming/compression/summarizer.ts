/**
 * The one model call of LLM history compression, behind an interface so the
 * strategies stay pure (tests, replays and benchmarks can plug in a fake), with
 * an implementation on the real `@anthropic-ai/sdk` client.
 *
 * The request is always one user message (the transcript as text) under a
 * system prompt, never the live turns: nothing in it can break the API's
 * tool-pairing rules, and the model has no tool pattern to continue.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { CallUsage, MessageParam } from '../../session/types';

export interface SummaryRequest {
  readonly system: string;
  readonly messages: readonly MessageParam[];
  readonly maxTokens: number;
  readonly model: string;
}

export interface SummaryResult {
  readonly text: string;
  readonly usage: CallUsage;
  /** The model that answered (a summarizer may use a cheaper one than requested). */
  readonly model?: string;
  /** The answer stopped at maxTokens. */
  readonly truncated?: boolean;
}

export interface Summarizer {
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult>;
}

export interface SdkSummarizerOptions {
  /** Model for summaries (e.g. a cheaper one than the agent's); default: the model of the request. */
  readonly model?: string;
  /** Sent as `temperature` when set (left to the API default otherwise). */
  readonly temperature?: number;
  /** Every call's usage, for the cost ledger and token calibration. */
  readonly onUsage?: (usage: CallUsage, model: string) => void;
}

/** Just what the summarizer uses of the SDK client (an `Anthropic` instance fits). */
export interface MessagesCreateClient {
  readonly messages: {
    create(
      body: Anthropic.MessageCreateParamsNonStreaming,
      options?: { signal?: AbortSignal },
    ): PromiseLike<Anthropic.Message>;
  };
}

/** Summaries through `client.messages.create` (non-streaming: summaries are short, max_tokens is small). */
export class SdkSummarizer implements Summarizer {
  constructor(
    private readonly client: MessagesCreateClient,
    private readonly o: SdkSummarizerOptions = {},
  ) {}

  get model(): string | undefined {
    return this.o.model;
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const model = this.o.model ?? request.model;
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: request.maxTokens,
      system: request.system,
      messages: [...request.messages],
      ...(this.o.temperature !== undefined ? { temperature: this.o.temperature } : {}),
    };
    const msg = await this.client.messages.create(body, signal ? { signal } : undefined);
    const text = msg.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('')
      .trim();
    const usage: CallUsage = {
      input_tokens: msg.usage.input_tokens,
      output_tokens: msg.usage.output_tokens,
      cache_creation_input_tokens: msg.usage.cache_creation_input_tokens ?? null,
      cache_read_input_tokens: msg.usage.cache_read_input_tokens ?? null,
    };
    this.o.onUsage?.(usage, msg.model || model);
    return { text, usage, model: msg.model || model, truncated: msg.stop_reason === 'max_tokens' };
  }
}
