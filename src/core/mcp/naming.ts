/**
 * Tool names offered to the model for MCP tools: `mcp__<server>__<tool>`, the
 * convention Claude Code uses, so prompts and transcripts read the same.
 *
 * The Messages API accepts tool names matching `^[a-zA-Z0-9_-]{1,64}$`; other
 * characters become `_`, and a name past the limit is cut and ends with a hash
 * of the full (server, tool) pair, so the same tool always gets the same name
 * and two long names that share a prefix stay distinct.
 */

/** The API's limit on a tool name's length. */
export const MAX_TOOL_NAME_LENGTH = 64;
/** Claude Code's prefix for MCP tools. */
export const MCP_TOOL_PREFIX = 'mcp__';
/** Separator between server and tool in an offered name. */
export const MCP_NAME_SEPARATOR = '__';
/** Hex digits of the hash that ends a shortened name (32 bits: collisions among one user's tools are negligible). */
const HASH_HEX_DIGITS = 8;

/** Characters the API does not accept in a tool name become `_`. */
export function sanitizeNamePart(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean || '_';
}

/** FNV-1a (32 bit) of a string, as 8 hex digits: small, stable across runs and platforms. */
export function stableHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(HASH_HEX_DIGITS, '0');
}

/** The name the model sees for `tool` of `server`; at most MAX_TOOL_NAME_LENGTH characters. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}${MCP_NAME_SEPARATOR}${sanitizeNamePart(tool)}`;
  const exact = full === `${MCP_TOOL_PREFIX}${server}${MCP_NAME_SEPARATOR}${tool}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH && exact) return full;
  // Sanitizing can make two names equal (`a.b`, `a_b`): the hash of the original pair tells them apart.
  const suffix = `_${stableHash(`${server}\u0000${tool}`)}`;
  if (full.length + suffix.length <= MAX_TOOL_NAME_LENGTH) return `${full}${suffix}`;
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/** Whether an offered tool name is an MCP tool's (by its prefix). */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
