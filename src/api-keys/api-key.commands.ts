import { z } from 'zod';
import { LOCAL_OPERATOR } from '../platform/access/principal.ts';
import type { OperatorCommands } from '../platform/db/operator-channel.ts';
import { ValidationError } from '../platform/errors.ts';
import type { ApiKeyRecord, ApiKeyService, CreatedApiKey } from './api-key.service.ts';

/**
 * API key management as local operator commands: what the `apikey` command line runs, on the
 * running server through the operator channel, or on the database it opened itself. Arguments and
 * answers are JSON (dates as ISO strings), the same on both paths.
 */
export const API_KEY_COMMANDS = {
  create: 'apikey.create',
  list: 'apikey.list',
  revoke: 'apikey.revoke',
} as const;

const createArgs = z.strictObject({
  name: z.string(),
  scopes: z.array(z.string()),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});
const revokeArgs = z.strictObject({ id: z.string() });

export function apiKeyCommands(apiKeys: ApiKeyService): OperatorCommands {
  return {
    [API_KEY_COMMANDS.create]: async (raw) => {
      const args = parse(createArgs, raw);
      return apiKeys.create(
        {
          name: args.name,
          scopes: args.scopes,
          expiresAt: args.expiresAt ? new Date(args.expiresAt) : undefined,
        },
        LOCAL_OPERATOR,
      );
    },
    [API_KEY_COMMANDS.list]: () => apiKeys.list(LOCAL_OPERATOR),
    [API_KEY_COMMANDS.revoke]: async (raw) => apiKeys.revoke(parse(revokeArgs, raw).id, LOCAL_OPERATOR),
  };
}

function parse<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ValidationError(issue.path.join('.') || 'args', issue.message);
  }
  return result.data;
}

type Wire<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/** A key record as it crossed JSON, with its dates back. */
export function keyRecordOf(wire: Wire<ApiKeyRecord>): ApiKeyRecord {
  const date = (value: string | null) => (value === null ? null : new Date(value));
  return {
    ...wire,
    createdAt: new Date(wire.createdAt),
    expiresAt: date(wire.expiresAt),
    lastUsedAt: date(wire.lastUsedAt),
    revokedAt: date(wire.revokedAt),
  };
}

export function createdKeyOf(wire: { key: Wire<ApiKeyRecord>; secret: string }): CreatedApiKey {
  return { key: keyRecordOf(wire.key), secret: wire.secret };
}
