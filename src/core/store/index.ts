export * from './records';
export * from './load';
export * from './journal';
export * from './list';
