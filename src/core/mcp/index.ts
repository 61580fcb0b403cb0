/** MCP servers as a tool source of the agent: configuration, the SDK client, result conversion, naming. */
export * from './config';
export * from './connection';
export * from './convert';
export * from './naming';
export * from './redact';
export * from './source';
export * from './jsonc';
export * from './inventory';
