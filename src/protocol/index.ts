/**
 * The typed host ⇄ webview protocol (docs/ARCHITECTURE.md): core, the hosts and the webviews
 * import it; it imports nothing of theirs. `src/protocol` is the messages and their guards
 * (messages.ts, parse.ts); the modules beside them are imported by path:
 *   delta.ts, delta-guards.ts   snapshot deltas: computed by the hosts, checked and applied by the webview
 *   mcp.ts                      the MCP part (approvals, the inspector's Tools tab)
 *   format.ts                   number formats shared by findings and the webviews
 *   report*.ts                  the report view: its messages, the report's types, formats and charts
 *   access.ts                   the standalone page's access token: its header and parameter
 */
export * from './messages';
export * from './parse';
