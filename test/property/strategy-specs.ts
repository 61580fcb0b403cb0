/** Every strategy that needs no model (LLM compression needs one), by spec: what the validity tests run over. */
export const MODEL_FREE_STRATEGIES = [
  'none',
  'default',
  'summarize-tool-results',
  'supersede-stale-reads',
  'tool-pruning',
  'atomic-window',
  'anthropic-clear-tool-uses',
  'opencode-prune',
  'openai-tool-output-trimmer',
  'strands-window',
] as const;
