export * from './context-engine';
export * from './replay';
export * from './view-rows';
export * from './cost-ledger';
export * from './client-prefix';
export * from './savings-guard';
