/**
 * Everything an entry point needs beyond its first steps, in one module that the entry points
 * import when they need it: its code loads while the database opens (see start.ts).
 */
export { buildApp } from './app.ts';
export { createDeps } from './deps.ts';
export { modules } from './modules.ts';
