import { builder } from '../builder.ts';
import { type Principal, SCOPE_MEANING, SCOPES, type Scope } from '../platform/access/principal.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { requiresScope } from '../platform/graphql/scope-guard.ts';
import type { ApiKeyRecord, CreatedApiKey } from './api-key.service.ts';
import { apiKeysDeps } from './api-keys.deps.ts';

const ApiScopeEnum = builder.enumType('ApiScope', {
  description: 'What an API key may do. Each scope includes the ones before it: ADMIN > WRITE > READ.',
  values: {
    READ: { value: 'read', description: `Read: ${SCOPE_MEANING.read}.` },
    WRITE: { value: 'write', description: `Write: ${SCOPE_MEANING.write}.` },
    ADMIN: { value: 'admin', description: `Admin: ${SCOPE_MEANING.admin}.` },
  } as const,
});

/** Scopes in their order (read, write, admin), whatever order a set holds them in. */
const ordered = (scopes: ReadonlySet<Scope> | readonly Scope[]): Scope[] => {
  const held = new Set<string>(scopes);
  return SCOPES.filter((scope) => held.has(scope));
};

const ApiKeyRef = builder.objectRef<ApiKeyRecord>('ApiKey').implement({
  description:
    'An API key. Its secret is shown once, when it is created, and never again (only a hash is kept). ' +
    'Entity: id is the key id.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Stable key id (also the owner id of what the key creates).' }),
    name: t.exposeString('name', { description: 'What the key is for, as its creator wrote it.' }),
    prefix: t.exposeString('prefix', {
      description: 'The public part of the key, `vgl_<prefix>_…`, to tell which key is which.',
    }),
    scopes: t.field({
      type: [ApiScopeEnum],
      description: 'The scopes granted (each also allows the ones below it).',
      resolve: (key) => ordered(key.scopes),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the key was created.' }),
    createdBy: t.exposeString('createdBy', {
      description: 'Who created it: an API key id, `admin` (ADMIN_API_KEY), `local` or `anonymous`.',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Null: never.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last successful use, to the minute; null if never used.',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the key was revoked; null while it is not.',
    }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  description:
    'A new API key and its secret. Value object: not normalised (the key itself is the ApiKey entity; ' +
    'keep the secret out of any cache).',
  fields: (t) => ({
    apiKey: t.field({
      type: ApiKeyRef,
      description: 'The key as listed from now on.',
      resolve: (created) => created.key,
    }),
    secret: t.exposeString('secret', {
      description:
        'The key itself, shown once: store it now, it cannot be shown again. Present it as ' +
        '`Authorization: Bearer <key>` or `X-API-Key: <key>`.',
    }),
  }),
});

type CallerKind = Principal['kind'];

const CALLER_KIND_DESCRIPTIONS: Readonly<Record<CallerKind, string>> = {
  key: 'An API key; the caller id is the key id.',
  bootstrap: 'The bootstrap admin key (ADMIN_API_KEY); the caller id is `admin`.',
  local: 'The operator of the stdio MCP server (whoever started the process).',
  anonymous: 'No key: every scope while AUTH_REQUIRED is off, none while it is on.',
};

const CallerKindEnum = builder.enumType('CallerKind', {
  description: 'How a caller was authenticated.',
  values: enumValues(CALLER_KIND_DESCRIPTIONS),
});

const CallerRef = builder.objectRef<Principal>('Caller').implement({
  description:
    'Who is calling, as Vigil authenticated the request. Entity: id is the owner id of what the caller ' +
    'creates (an API key id, `admin`, `local` or `anonymous`).',
  fields: (t) => ({
    kind: t.field({
      type: CallerKindEnum,
      description: 'How the caller was authenticated.',
      resolve: (principal) => principal.kind,
    }),
    id: t.exposeID('id', { description: 'The owner id of what this caller creates.' }),
    name: t.exposeString('name', { description: 'Name of the key, or of the kind of caller.' }),
    scopes: t.field({
      type: [ApiScopeEnum],
      description: 'Every scope the caller holds, the implied ones included.',
      resolve: (principal) => ordered(principal.scopes),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the caller’s API key expires; null otherwise.',
      resolve: (principal) => principal.expiresAt ?? null,
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: CallerRef,
    description: 'Who the caller is and which scopes it holds (to check a key).',
    resolve: (_root, _args, ctx) => ctx.viewer.principal,
  }),
);

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKeyRef],
    ...requiresScope('admin'),
    description: 'Every API key, revoked ones included, newest first; never a secret.',
    resolve: (_root, _args, ctx) => apiKeysDeps(ctx).apiKeys.list(ctx.viewer.principal),
  }),
);

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKeyRef,
    ...requiresScope('admin'),
    description:
      'Creates an API key and returns its secret, once (only a hash is kept). `name` says what it is ' +
      'for (1 to 100 characters); `expiresAt`, if given, must be in the future.',
    args: {
      name: t.arg.string({ required: true, description: 'What the key is for (1 to 100 characters).' }),
      scopes: t.arg({ type: [ApiScopeEnum], required: true, description: 'At least one.' }),
      expiresAt: t.arg({ type: 'DateTime', description: 'Omitted or null: the key never expires.' }),
    },
    resolve: (_root, { name, scopes, expiresAt }, ctx) =>
      apiKeysDeps(ctx).apiKeys.create({ name, scopes, expiresAt }, ctx.viewer.principal),
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.field({
    type: ApiKeyRef,
    ...requiresScope('admin'),
    description:
      'Revokes an API key at once, on every instance; revoking it again returns it unchanged. ' +
      'Unknown ids are NOT_FOUND.',
    args: { id: t.arg.id({ required: true, description: 'Id of the key to revoke.' }) },
    resolve: (_root, { id }, ctx) => apiKeysDeps(ctx).apiKeys.revoke(String(id), ctx.viewer.principal),
  }),
);
