/**
 * undici, loaded with its first use (a server may never call a live provider or deliver a webhook).
 *
 * undici is a CommonJS package. Node gives an `import()` of it its named exports as well as
 * `default`; the built bundle (`npm run build`) gives only `default`, the package's
 * `module.exports`. Destructuring `Agent` or `request` from the import itself worked on the sources
 * and failed in the bundle ("Agent is not a constructor"), so every use goes through here.
 */
export type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').then((module) => {
    const exports = (module as unknown as { default?: Undici }).default;
    return typeof module.Agent === 'function' || !exports ? module : exports;
  });
  return loading;
}
