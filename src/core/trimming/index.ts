export * from './types';
export * from './decisions';
export * from './message-index';
export * from './cache-aware';
export * from './pipeline';
export * from './registry';
export * from './refs';
export * from './summary-text';
