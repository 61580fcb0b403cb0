/**
 * The "Trimline" output channel: requests (model, sizes, usage; never keys or
 * headers) and trimming decisions. Every line passes through `redactSecrets`
 * with the current key, so a key that slips into an error message is masked.
 */
import * as vscode from 'vscode';
import { redactSecrets } from './config-map';

export class Log implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  private secrets: (string | undefined)[] = [];
  /** Further secrets by group (MCP servers' env, headers and inputs). */
  private readonly groups = new Map<string, string[]>();

  constructor() {
    this.channel = vscode.window.createOutputChannel('Trimline', { log: true });
  }

  /** Values to mask in every line from now on (the API key). */
  setSecrets(values: (string | undefined)[]): void {
    this.secrets = values.filter((v): v is string => !!v);
  }

  /** Values of one group to mask from now on, replacing the group's previous ones. */
  addSecrets(group: string, values: readonly string[]): void {
    this.groups.set(group, [...values]);
  }

  private masked(message: string): string {
    return redactSecrets(message, [...this.secrets, ...[...this.groups.values()].flat()]);
  }

  info(message: string): void {
    this.channel.info(this.masked(message));
  }

  warn(message: string): void {
    this.channel.warn(this.masked(message));
  }

  error(message: string, err?: unknown): void {
    const detail = err === undefined ? '' : `: ${err instanceof Error ? err.message : String(err)}`;
    this.channel.error(this.masked(message + detail));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
