/**
 * What the loop keeps of a model call once it is over: the assistant message (whole, or the
 * text said so far marked `interrupted`), the call record, the token calibration, the cost in
 * the ledger, and the journal records and events that say so. History compression's
 * summarization calls are billed and journaled too, but are no call of the conversation.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ContextEngine } from '../engine/context-engine';
import type { Session } from '../session/session';
import type { CallRecord, CallUsage, ContentBlockParam } from '../session/types';
import type { Journal } from '../store/journal';
import type { AgentEmitter } from './events';
import type { UsageLedger } from './ledger';
import type { PreparedRequest } from './model-call';
import { CALIBRATION_ID_PREFIX } from './persistence';
import { callUsage, partialContent, responseContent } from './stream-call';

/** Where a call's outcome is kept: the loop's session, engine, journal, ledger and events. */
export interface CallBook {
  readonly session: Session;
  readonly engine: ContextEngine;
  readonly journal?: Journal;
  readonly ledger: UsageLedger;
  readonly emitter: AgentEmitter;
}

/** Record a complete response: message, call, calibration, cost. Returns the recorded content. */
export function recordResponse(
  book: CallBook,
  message: Anthropic.Message,
  request: PreparedRequest,
): ContentBlockParam[] {
  const usage = callUsage(message.usage);
  const timestamp = new Date().toISOString();
  const content = responseContent(message.content);
  const logged = book.session.append('assistant', content, {
    usage,
    model: message.model,
    apiMessageId: message.id,
    timestamp,
  });
  book.emitter.emit('message', { message: logged });
  const call = recordCall(book, message, usage, timestamp, request);
  book.engine.observeUsage(usage, request.upTo, request.epochStart);
  book.journal?.recordCalibration(
    { callIndex: call.index, state: book.engine.tokens.toJSON() },
    `${CALIBRATION_ID_PREFIX}${call.index}`,
  );
  bill(book, 'call', call.index, usage, message.model);
  return content;
}

/**
 * A cancelled call: keep the text said so far as an interrupted message, and count the call
 * if the API had started answering (it is billed).
 */
export function recordInterrupted(
  book: CallBook,
  partial: Anthropic.Message | undefined,
  request: PreparedRequest,
): void {
  if (!partial) return;
  const timestamp = new Date().toISOString();
  const content = partialContent(partial);
  if (content.length) {
    const logged = book.session.append('assistant', content, {
      interrupted: true,
      model: partial.model,
      apiMessageId: partial.id,
      timestamp,
    });
    book.emitter.emit('message', { message: logged });
  }
  const usage = callUsage(partial.usage);
  const call = recordCall(book, partial, usage, timestamp, request);
  bill(book, 'call', call.index, usage, partial.model);
}

/** A summarization call of history compression: billed like any call, not part of the conversation. */
export function recordSummary(book: CallBook, usage: CallUsage, model: string): void {
  const callIndex = book.session.calls.length;
  book.journal?.recordCompression({ callIndex, model, usage });
  bill(book, 'summary', callIndex, usage, model);
}

function recordCall(
  book: CallBook,
  message: Anthropic.Message,
  usage: CallUsage,
  timestamp: string,
  request: PreparedRequest,
): CallRecord {
  const call = book.session.recordCall({
    at: request.upTo,
    epochStart: request.epochStart,
    apiMessageId: message.id,
    model: message.model,
    timestamp,
    usage,
  });
  book.journal?.recordCall(call);
  return call;
}

/** The call's cost into the ledger, and the usage event that shows it. */
function bill(book: CallBook, kind: 'call' | 'summary', callIndex: number, usage: CallUsage, model: string): void {
  const cost = book.ledger.add(usage, model);
  const { run, session } = book.ledger;
  book.emitter.emit('usage', { kind, callIndex, usage, cost, run, session });
}
