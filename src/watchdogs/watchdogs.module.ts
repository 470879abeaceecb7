import { defineModule } from '../platform/module.ts';
import * as eventsTables from './events.sql.ts';
import * as statesTables from './states.sql.ts';

/** Watchdogs: the detectors' events, stored and published to every instance. */
export const watchdogsModule = defineModule({
  name: 'watchdogs',
  tables: [eventsTables, statesTables],
});
