/**
 * Contracts between the light part of the extension (activation, views, commands:
 * dist/extension.js) and the heavy core loaded on first use (agent, engine,
 * tokenizer, SDK: dist/extension-core.js). Type-only imports: nothing heavy here.
 */
import type * as vscode from 'vscode';
import type { ChatEvent, HostMessage, InspectorAction, WebviewRequest } from '../../protocol';
import type { Log } from './log';
import type { ApiKeyStore } from './secrets';

/**
 * Where an inspector panel gets its snapshots: the live chat session, or an imported
 * transcript (replayed through `strategy` when one was chosen, e.g. in the report view;
 * else through the `trimline.strategy` setting).
 */
export type InspectorSource =
  { kind: 'live' } | { kind: 'import'; file: string; strategy?: string } | { kind: 'proxy' };

/** The command each action of the inspector's empty state runs (both contributed in package.json). */
export const INSPECTOR_ACTION_COMMANDS: Readonly<Record<InspectorAction, string>> = {
  startChat: 'trimline.newChat',
  importTranscript: 'trimline.importTranscript',
};

/** The actions the live inspector offers while there is no session (the VS Code host has both). */
export const LIVE_EMPTY_ACTIONS: readonly InspectorAction[] = ['startChat', 'importTranscript'];

/** One open inspector panel, as the core sees it. */
export interface InspectorHandle {
  readonly source: InspectorSource;
  post(message: HostMessage): void;
  readonly visible: boolean;
}

/** What the core needs from the light part. */
export interface CoreDeps {
  readonly context: vscode.ExtensionContext;
  readonly log: Log;
  readonly keys: ApiKeyStore;
  /** Post a chat event to the chat view (dropped while it is not resolved; the core replays on `ready`). */
  postChat(event: ChatEvent): void;
  /** Reveal the chat view. */
  revealChat(): Promise<void>;
  /** Inspector panels currently open. */
  inspectors(): readonly InspectorHandle[];
  /** Open (or reveal) the inspector of the live session. */
  openInspector(): void;
  /** Open an inspector panel for an imported transcript. */
  openImportInspector(file: string): void;
  /** Status bar: context used / window and session cost; undefined hides it. */
  setStatus(status: StatusInfo | undefined): void;
  /** Status bar: the proxy agents are routed through, and the agent of the session shown; undefined: not routing. */
  setRouting(url: string | undefined, agent?: string): void;
  /** Open (or reveal) the inspector of proxied sessions (terminal agents). */
  openProxyInspector(): void;
}

export interface StatusInfo {
  readonly contextTokens: number;
  readonly contextWindow: number;
  readonly cost: number;
  readonly calibrated: boolean;
  readonly busy: boolean;
}

/** The heavy core. */
export interface Core extends vscode.Disposable {
  chatReady(): Promise<void>;
  chatRequest(request: WebviewRequest): Promise<unknown>;
  inspectorReady(panel: InspectorHandle): Promise<void>;
  inspectorRequest(panel: InspectorHandle, request: WebviewRequest): Promise<unknown>;
  inspectorClosed(panel: InspectorHandle): void;
  newChat(): Promise<void>;
  resumeSession(): Promise<void>;
  compactNow(): Promise<void>;
  exportSession(): Promise<void>;
  importTranscript(): Promise<void>;
  /** Start the proxy and point new terminals' ANTHROPIC_BASE_URL at it. */
  routeTerminals(): Promise<void>;
  /** Stop the proxy and take the variable back. */
  stopRouting(): Promise<void>;
  /** Pick the proxied session the inspector of terminal agents shows. */
  pickProxiedSession(): Promise<void>;
  /** Route the VS Code agents the user picks through the proxy (their own settings). */
  routeAgents(): Promise<void>;
  /** Restore every agent setting routing changed (also after a restart), and stop routing. */
  stopRoutingAgents(): Promise<void>;
  /** A route was journaled before a restart: serve the port its agents point at again. */
  resumeAgentRouting(): Promise<void>;
  /** Settings or the key changed: the next turn uses the new values. */
  configChanged(): void;
  /** Workspace Trust was granted. */
  trustChanged(): void;
}

export type CreateCore = (deps: CoreDeps) => Core;
