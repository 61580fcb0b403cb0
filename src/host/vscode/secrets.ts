/**
 * The API key lives in VS Code's SecretStorage (OS keychain), or comes from
 * `ANTHROPIC_API_KEY` in the extension host's environment. It is never written to
 * settings, state or the log.
 */
import * as vscode from 'vscode';

const SECRET_KEY = 'trimline.anthropicApiKey';

export type KeySource = 'secret-storage' | 'environment' | 'none';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The key to use and where it came from. SecretStorage wins over the environment. */
  async get(): Promise<{ key?: string; source: KeySource }> {
    const stored = await this.secrets.get(SECRET_KEY);
    if (stored) return { key: stored, source: 'secret-storage' };
    const env = process.env.ANTHROPIC_API_KEY?.trim();
    if (env) return { key: env, source: 'environment' };
    return { source: 'none' };
  }

  /** Ask for a key (password box) and store it. Returns false when cancelled. */
  async prompt(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: 'Trimline: Anthropic API key',
      prompt:
        'Stored in VS Code Secret Storage (your OS keychain), never in settings. Get a key at console.anthropic.com.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) =>
        v.trim().length < 8
          ? 'That does not look like an API key.'
          : /\s/.test(v.trim())
            ? 'An API key has no spaces.'
            : undefined,
    });
    if (!key) return false;
    await this.secrets.store(SECRET_KEY, key.trim());
    return true;
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_KEY);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === SECRET_KEY) listener();
    });
  }
}
