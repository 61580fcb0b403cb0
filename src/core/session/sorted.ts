/** Searches in ascending number arrays (positions kept in log order). */

/** Index of the first element ≥ `x` (the array's length when none is). O(log n). */
export function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last element < `x`, or `none`. */
export function lastBelow(sorted: readonly number[], x: number, none: number): number {
  const i = lowerBound(sorted, x);
  return i > 0 ? sorted[i - 1] : none;
}
