/**
 * Significant digits kept in derived numbers. A double carries 15 to 17; the last few are the
 * residue of binary fractions (1.1 - 1.0 = 0.10000000000000009), which clients then print as
 * `-2037.800000000003`. Twelve digits keep every price, ratio and percent exact to far beyond any
 * market's tick size while dropping that residue.
 */
export const SIGNIFICANT_DIGITS = 12;

/**
 * A derived number (a difference, a ratio, a percent) without float noise: rounded to
 * SIGNIFICANT_DIGITS significant digits. Non-finite values pass through unchanged, and -0 becomes 0.
 */
export function roundFloat(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Number(value.toPrecision(SIGNIFICANT_DIGITS)) + 0;
}

/** roundFloat that keeps null (an unknown value stays unknown). */
export function roundNullable(value: number | null): number | null {
  return value === null ? null : roundFloat(value);
}
