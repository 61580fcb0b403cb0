/**
 * The context inspector's pure side: snapshots of what the model sees (rows, totals,
 * cache, cost, per-call chart, composition, findings), the call-to-call diff, user
 * actions (pin/trim/restore/compact) and the HTML document. Hosts (VS Code panel,
 * standalone server) record calls in a CallHistory, apply requests with
 * applyUserAction / originalsOf, and post buildSnapshot(...) after every change (as
 * deltas through a SnapshotStream once a view has a snapshot).
 */
export * from './actions';
export * from './composition';
export * from './diff';
export * from './findings';
export * from './flat';
export * from '../../protocol/format';
export * from './history';
export * from './html';
export * from './requests';
export * from './snapshot';
export * from '../../protocol/delta';
