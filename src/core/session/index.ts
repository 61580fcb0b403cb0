export * from './types';
export * from './overlay';
export * from './log';
export * from './session';
export * from './user-text';
