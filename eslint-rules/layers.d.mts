/** Types of the floor plan (layers.mjs), for the architecture tests. */
export interface Place {
  readonly layer: string;
  readonly floor?: string;
  readonly vscodeAllowed?: boolean;
}
export const REPO: string;
export const LAYERS: readonly string[];
export const CORE_FLOORS: readonly string[];
export function placeOf(file: string): Place | undefined;
export function forbidden(from: Place, to: Place): string | undefined;
declare const plugin: { rules: Record<string, unknown> };
export default plugin;
