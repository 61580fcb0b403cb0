/** The agent: loop, events, configuration, durable sessions, tools and the workspace they act on. */
export * from './config';
export * from './events';
export * from './ledger';
export * from './loop';
export * from './model-call';
export * from './persistence';
export * from './recovery';
export * from './retry';
export * from './stream-call';
export * from './system-prompt';
export * from './tool-batch';
export * from './tools';
export * from './workspace';
export { NodeWorkspace, type NodeWorkspaceOptions } from './node-workspace';
export * from './protected-paths';
