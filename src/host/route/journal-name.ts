/** The route's undo record's file name (kept apart so the light extension entry imports nothing else). */
export const ROUTE_JOURNAL_FILE = 'route-journal.json';
