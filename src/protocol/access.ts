/**
 * How the standalone inspector page proves it was opened at the address its server printed
 * (src/host/access-token.ts): the token arrives in the page's URL as `?token=…`, and the page
 * sends it back with its calls, in a header on fetches and as the parameter on the event
 * stream (EventSource cannot set headers).
 */

/** The header a page's fetches carry the token in. */
export const TOKEN_HEADER = 'x-trimline-token';
/** The query parameter of the printed address and of the page's event stream. */
export const TOKEN_PARAM = 'token';
