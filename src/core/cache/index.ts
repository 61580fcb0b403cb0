/** Prompt caching: breakpoint planner, cost model, cache simulator. */
export * from './planner';
export * from './cost';
export * from './simulator';
