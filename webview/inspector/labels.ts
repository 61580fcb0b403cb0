/** Labels and limits shared by the inspector's views. */

/** Characters of a block preview in the snapshot (PREVIEW_CHARS in src/core/inspect/snapshot.ts). */
export const PREVIEW_LIMIT = 300;

export const STATES = ['verbatim', 'trimmed', 'summarized', 'pruned', 'pinned'] as const;
