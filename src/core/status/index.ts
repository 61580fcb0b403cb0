/** Status-line facts of a session (`trimline statusline`): from a proxy's calls or a transcript's tail. */
export { statusFromCalls } from './from-calls';
export { MAX_TAIL_BYTES, readTail, statusFromTail, statusFromTranscript, TAIL_BYTES } from './transcript-tail';
export { tailCalls } from './transcript-tail';
