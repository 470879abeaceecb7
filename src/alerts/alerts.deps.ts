import { moduleDeps } from '../context.ts';
import type { AlertsDomain } from './alerts.domain.ts';

/** What the alerts module needs from the app (the composition root wires it). */
export interface AlertsDeps {
  readonly alerts: AlertsDomain;
}

/** The alerts module's dependencies in its resolvers. */
export const alertsDeps = moduleDeps<AlertsDeps>();
