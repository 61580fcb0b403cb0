/**
 * Commands around a session that need a picker or a file dialog: Resume Session,
 * Compact Now (LLM compression strategies, or the extractive digest), Export Session
 * (Anthropic JSON of what the model would see now) and Import Transcript.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import * as vscode from 'vscode';
import type { ActionPrice } from '../../protocol/prices';
import { clientOptions } from '../../core/agent/config';
import { importTranscript, ImportError } from '../../core/import';
import { applyUserAction } from '../../core/inspect';
import { listSessions } from '../../core/store/list';
import {
  COMPRESSION_DOCS,
  compactNow,
  isCompressionKind,
  SdkSummarizer,
  type CompressionKind,
} from '../../core/trimming';
import type { ImportedSession } from '../../core/session/types';
import type { LiveSession } from './live-session';
import type { Log } from './log';

/** A stored session the user picked, or undefined when cancelled. */
export async function pickSession(dir: string, current?: string): Promise<string | undefined> {
  const sessions = listSessions(dir).filter((s) => s.messageCount > 0);
  if (!sessions.length) {
    void vscode.window.showInformationMessage('Trimline: no stored sessions in this workspace yet.');
    return undefined;
  }
  const items = sessions.map((s) => ({
    label: s.title,
    description:
      `${s.messageCount} messages${s.model ? ` · ${s.model}` : ''}` + (s.sessionId === current ? ' · current' : ''),
    detail: `${new Date(s.updatedAt).toLocaleString()} · ${s.sessionId}`,
    id: s.sessionId,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Trimline: Resume Session',
    placeHolder: 'Pick a session to continue',
    matchOnDetail: true,
  });
  return picked?.id;
}

const DIGEST = 'extractive-digest';

/** Compact Now: pick a strategy, run it on the live session, report what it saved. */
export async function compactSession(live: LiveSession, log: Log): Promise<string | undefined> {
  if (live.running) throw new Error('Trimline is working; compact after the turn ends (or press Stop).');
  const items: (vscode.QuickPickItem & { kind?: vscode.QuickPickItemKind; id: string })[] = [
    { label: 'LLM compression', kind: vscode.QuickPickItemKind.Separator, id: '' },
    ...COMPRESSION_DOCS.map((d) => ({ label: d.name, detail: d.summary, id: d.name })),
    { label: 'Without a model call', kind: vscode.QuickPickItemKind.Separator, id: '' },
    {
      label: DIGEST,
      detail: 'Replace the older history by an extractive digest (prompts and reference ids); free and instant.',
      id: DIGEST,
    },
  ];
  // The price first (issue 17): what rewriting the cached history costs, and whether it pays back.
  const price = priceOrUndefined(live);
  const picked = await vscode.window.showQuickPick(items, {
    title: `Trimline: Compact Now${price ? ` — ${price.summary}` : ''}`,
    placeHolder: 'How should the history before the current turn be compressed?',
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  if (price && !price.paysBack) {
    const wait = picked.id === DIGEST ? ['Wait for the next cold cache'] : [];
    const choice = await vscode.window.showWarningMessage(
      `Compacting now will not pay back over the calls expected: ${price.summary}.`,
      { modal: true },
      'Compact now',
      ...wait,
    );
    if (!choice) return undefined;
    if (choice !== 'Compact now') {
      const r = live.inspector.handle({ op: 'defer', action: { op: 'compact' } }) as { message: string };
      log.info(`compact now: ${r.message}`);
      return r.message;
    }
  }
  const engine = live.loop.engine;
  if (picked.id === DIGEST) {
    const r = applyUserAction(engine, { op: 'compact' }, engine.session.calls.length);
    live.overlaysChanged();
    log.info(`compact now (digest): ${r.message}`);
    return r.message;
  }
  if (!isCompressionKind(picked.id)) return undefined;
  const kind: CompressionKind = picked.id;
  const client = new Anthropic(clientOptions(live.loop.config));
  const summarizer = new SdkSummarizer(client, { onUsage: (usage, model) => live.loop.ledger.add(usage, model) });
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Trimline: compacting with ${kind}…`,
      cancellable: true,
    },
    async (_progress, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        return await compactNow(engine.session, engine, kind, ac.signal, { summarizer });
      } finally {
        sub.dispose();
      }
    },
  );
  live.overlaysChanged();
  const message = result.applied.length
    ? `Compacted with ${kind}: ${result.applied.length} summary${result.applied.length === 1 ? '' : 'ies'}, ` +
      `~${result.tokensBefore.toLocaleString('en-US')} → ~${result.tokensAfter.toLocaleString('en-US')} tokens ` +
      '(restorable in the inspector).'
    : `Nothing compacted with ${kind}: ${result.skipped ?? 'no change'}.`;
  log.info(`compact now: ${message}${result.skipped && result.applied.length ? ` (${result.skipped})` : ''}`);
  return message;
}

/** Export Session: the next request's {model, system, tools, messages} as JSON. */
export async function exportSession(live: LiveSession, log: Log): Promise<void> {
  const body = live.inspector.nextBody();
  if (!body) throw new Error('nothing to export yet: the session is empty.');
  const { model, system, tools, messages } = body;
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    title: 'Trimline: Export Session (Anthropic JSON)',
    defaultUri: root ? vscode.Uri.joinPath(root, `trimline-${live.sessionId}.json`) : undefined,
    filters: { 'Anthropic JSON': ['json'] },
  });
  if (!target) return;
  const json = `${JSON.stringify({ model, system, tools, messages }, null, 2)}\n`;
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(json));
  log.info(
    `exported session ${live.sessionId} (${messages.length} messages, as the model sees it now) to ` +
      `${target.toString(true)}`,
  );
  const open = await vscode.window.showInformationMessage(
    `Trimline: exported ${messages.length} messages as Anthropic JSON.`,
    'Open',
  );
  if (open) await vscode.window.showTextDocument(target);
}

/** Import Transcript: pick a file; returns its path once it parsed. */
export async function pickTranscript(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title:
      'Trimline: Import Transcript (Claude Code JSONL, Cline export, OpenAI chat / SWE-agent, OpenHands, ' +
      'Anthropic JSON)',
    canSelectMany: false,
    filters: { Transcripts: ['jsonl', 'json', 'traj'], 'All files': ['*'] },
    openLabel: 'Open in Inspector',
  });
  const uri = picked?.[0];
  if (!uri) return undefined;
  if (uri.scheme !== 'file') throw new Error('only files on this machine can be imported');
  return uri.fsPath;
}

/** Parse a transcript for the inspector; ImportError messages are one line, meant for the user. */
export function loadTranscript(file: string): ImportedSession {
  if (!fs.existsSync(file)) throw new Error(`${path.basename(file)} no longer exists`);
  try {
    return importTranscript(file);
  } catch (e) {
    if (e instanceof ImportError) throw new Error(e.message);
    throw e;
  }
}

/** The inspector's price of a compaction now, if the session has a request to price. */
function priceOrUndefined(live: LiveSession): ActionPrice | undefined {
  try {
    return live.inspector.handle({ op: 'price', action: { op: 'compact' } }) as ActionPrice;
  } catch {
    return undefined;
  }
}
