/** Dense solver for the calibrator's small (≈10×10) symmetric positive definite systems. */

/** Solve M·x = v for symmetric positive definite M (row-major, n×n) by Cholesky; M and v are not modified. */
export function solveSpd(m: ArrayLike<number>, v: ArrayLike<number>, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m[i * n + j];
      for (let k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
      if (i === j) {
        // The prior keeps M positive definite; guard against round-off anyway.
        l[i * n + i] = Math.sqrt(Math.max(s, 1e-12));
      } else l[i * n + j] = s / l[j * n + j];
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = v[i];
    for (let k = 0; k < i; k++) s -= l[i * n + k] * y[k];
    y[i] = s / l[i * n + i];
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < n; k++) s -= l[k * n + i] * x[k];
    x[i] = s / l[i * n + i];
  }
  return x;
}
