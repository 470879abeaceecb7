/** Whether dist/ holds a bundle at least as new as every file under src/ (see bundle-freshness.mjs). */
export function isBundleFresh(root: string, entry?: string): boolean;
