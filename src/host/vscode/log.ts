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

  constructor() {
    this.channel = vscode.window.createOutputChannel('Trimline', { log: true });
  }

  /** Values to mask in every line from now on (the API key). */
  setSecrets(values: (string | undefined)[]): void {
    this.secrets = values.filter((v): v is string => !!v);
  }

  info(message: string): void {
    this.channel.info(redactSecrets(message, this.secrets));
  }

  warn(message: string): void {
    this.channel.warn(redactSecrets(message, this.secrets));
  }

  error(message: string, err?: unknown): void {
    const detail = err === undefined ? '' : `: ${err instanceof Error ? err.message : String(err)}`;
    this.channel.error(redactSecrets(message + detail, this.secrets));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
