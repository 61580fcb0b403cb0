/** Prompt caching: breakpoint planner, model prices and limits, cache simulator. */
export * from './planner';
export * from './pricing';
export * from './simulator';
