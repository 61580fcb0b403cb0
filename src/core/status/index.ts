/** Status-line facts of a session (`trimline statusline`): from a proxy's calls or a transcript's tail. */
export { statusFromCalls } from './from-calls';
export { readTail, statusFromTail, statusFromTranscript, tailCalls, TAIL_BYTES, MAX_TAIL_BYTES } from './transcript-tail';
