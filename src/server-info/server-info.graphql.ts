import { setInterval as every } from 'node:timers/promises';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { isIdentifiedAdmin } from '../platform/access/principal.ts';
import type { DatabaseMode } from '../platform/db/database.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { checkIntervalMs, UPDATE_INTERVAL_MS } from '../platform/limits.ts';
import type { InstanceRow } from './instances.repository.ts';
import { serverInfoDeps } from './server-info.deps.ts';
import type { ServerInfo } from './server-info.service.ts';

const DATABASE_MODE_DESCRIPTIONS: Readonly<Record<DatabaseMode, string>> = {
  postgres: 'A PostgreSQL server (DATABASE_URL is set); several instances may share it.',
  pglite: 'The embedded PGlite database in DATA_DIR (single process).',
};

const DatabaseModeEnum = builder.enumType('DatabaseMode', {
  description: 'Where Vigil keeps its state.',
  values: enumValues(DATABASE_MODE_DESCRIPTIONS),
});

/** Why hostnames and pids are withheld: they help an attacker and no anonymous caller needs them. */
const PRIVATE = 'a host name and pid are given only to admins with a key';

const detailsFor = (ctx: GraphQLContext) =>
  serverInfoDeps(ctx).config.exposeInstanceDetails || isIdentifiedAdmin(ctx.viewer.principal);

const InstanceRef = builder.objectRef<InstanceRow>('ServiceInstance').implement({
  description:
    'A running Vigil process registered in the shared database. Entity: id is the instance id, unique per ' +
    'process start.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Instance id, unique per process start (ServerInfo.instanceId).' }),
    hostname: t.string({
      nullable: true,
      description: `Host the instance runs on; null unless EXPOSE_INSTANCE_DETAILS is on (${PRIVATE}).`,
      resolve: (row, _args, ctx) => (detailsFor(ctx) ? row.hostname : null),
    }),
    pid: t.int({
      nullable: true,
      description: `Process id of the instance; null unless EXPOSE_INSTANCE_DETAILS is on (${PRIVATE}).`,
      resolve: (row, _args, ctx) => (detailsFor(ctx) ? row.pid : null),
    }),
    version: t.exposeString('version', { description: 'Vigil version the instance runs.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the process started.' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', description: 'Last heartbeat (every 15 s).' }),
  }),
});

export const ServerInfoRef = builder.objectRef<ServerInfo>('ServerInfo').implement({
  description:
    'The process answering this request. Entity: id is its instance id (the same as `instanceId` and as ' +
    'the ServiceInstance id of this process).',
  fields: (t) => ({
    id: t.exposeID('instanceId', {
      description: 'Instance id of the answering process, unique per process start.',
    }),
    name: t.exposeString('name', { description: 'Service name (`vigil`).' }),
    version: t.exposeString('version', { description: 'Vigil version.' }),
    instanceId: t.exposeID('instanceId', { description: 'Unique per process start.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the process started.' }),
    uptimeSeconds: t.exposeFloat('uptimeSeconds', {
      description: 'Time since the process started, in seconds.',
    }),
    databaseMode: t.field({
      type: DatabaseModeEnum,
      description: 'Where Vigil keeps its state.',
      resolve: (info) => info.databaseMode,
    }),
    nodeVersion: t.exposeString('nodeVersion', {
      description: 'Node.js version of the process (`v20.19.0`).',
    }),
    liveInstances: t.field({
      type: [InstanceRef],
      description: 'Every instance that heartbeated in the last 45 s, this one included, newest first.',
      resolve: (_info, _args, ctx) => serverInfoDeps(ctx).serverInfo.liveInstances(),
    }),
  }),
});

builder.queryField('serverInfo', (t) =>
  t.field({
    type: ServerInfoRef,
    description: 'Version, uptime and database mode of the answering process.',
    resolve: (_root, _args, ctx) => serverInfoDeps(ctx).serverInfo.info(),
  }),
);

builder.subscriptionField('time', (t) =>
  t.field({
    type: 'DateTime',
    description:
      `The server clock, pushed every \`intervalMs\` milliseconds (${UPDATE_INTERVAL_MS.min} to ${UPDATE_INTERVAL_MS.max}). Useful to check that a ` +
      'subscription transport (graphql-ws or SSE) works end to end.',
    args: {
      intervalMs: t.arg.int({
        defaultValue: UPDATE_INTERVAL_MS.default,
        required: true,
        description: `Time between two pushes, in ms (${UPDATE_INTERVAL_MS.min} to ${UPDATE_INTERVAL_MS.max}).`,
      }),
    },
    subscribe: (_root, { intervalMs }, ctx) => {
      return clockTicks(checkIntervalMs('intervalMs', intervalMs), () => serverInfoDeps(ctx).clock.now());
    },
    resolve: (now) => now,
  }),
);

async function* clockTicks(intervalMs: number, now: () => Date): AsyncGenerator<Date> {
  yield now();
  // The timers/promises iterator clears its interval when the subscriber goes away (return()).
  for await (const _ of every(intervalMs)) yield now();
}
