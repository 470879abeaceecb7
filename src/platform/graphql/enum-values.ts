/**
 * GraphQL enum values are spelled in UPPER_CASE while the services (and the wire shapes of the MCP
 * tools and REST routes) keep their own lower-case or camelCase values. Declaring an enum from a
 * table of internal values keeps the two spellings tied together: the GraphQL name is derived, the
 * resolver gets and returns the internal value, and a tool maps a GraphQL name back with `fromEnumName`.
 */

/** The GraphQL spelling of an internal value: `quick` -> `QUICK`, `cryptoStats` -> `CRYPTO_STATS`. */
export function enumName(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** Pothos `values` for an enum: one entry per internal value, named by `enumName`, with its description. */
export function enumValues<T extends string>(
  descriptions: Readonly<Record<T, string>>,
): Record<string, { value: T; description: string }> {
  const values: Record<string, { value: T; description: string }> = {};
  for (const [value, description] of Object.entries(descriptions) as [T, string][]) {
    const name = enumName(value);
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`${value} gives no GraphQL enum name (${name})`);
    if (values[name]) throw new Error(`enum values ${values[name].value} and ${value} are both ${name}`);
    values[name] = { value, description };
  }
  return values;
}

/**
 * Maps a GraphQL enum name (as an operation result carries it) back to its internal value; a name the
 * table does not know is a programming error (a schema and its mapping out of step), not bad input.
 */
export function fromEnumName<T extends string>(values: readonly T[]): (name: string) => T {
  const table = new Map<string, T>(values.map((v) => [enumName(v), v]));
  return (name) => {
    const value = table.get(name);
    if (value === undefined) throw new Error(`unmapped GraphQL enum value ${name}`);
    return value;
  };
}
