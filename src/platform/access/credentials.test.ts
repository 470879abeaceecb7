import { describe, expect, it } from 'vitest';
import { presentedInConnectionParams, presentedInHeaders, presentedInUpgrade } from './credentials.ts';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] });

describe('presented keys', () => {
  it('reads a bearer token or X-API-Key, and agrees when both carry the same key', () => {
    expect(presentedInHeaders(headers({ authorization: 'Bearer vgl_abc' }))).toEqual({
      kind: 'key',
      secret: 'vgl_abc',
    });
    expect(presentedInHeaders(headers({ authorization: 'bearer   vgl_abc ' }))).toEqual({
      kind: 'key',
      secret: 'vgl_abc',
    });
    expect(presentedInHeaders(headers({ 'x-api-key': 'vgl_abc' }))).toEqual({
      kind: 'key',
      secret: 'vgl_abc',
    });
    expect(presentedInHeaders(headers({ authorization: 'Bearer k', 'x-api-key': 'k' }))).toEqual({
      kind: 'key',
      secret: 'k',
    });
    expect(presentedInHeaders(headers({}))).toEqual({ kind: 'none' });
  });

  it('refuses what is not one key rather than reading it as no key', () => {
    expect(presentedInHeaders(headers({ authorization: 'Bearer a b' }))).toMatchObject({
      kind: 'malformed',
      problem: expect.stringContaining('Bearer'),
    });
    expect(presentedInHeaders(headers({ authorization: 'Bearer a', 'x-api-key': 'b' }))).toMatchObject({
      kind: 'malformed',
      problem: 'two different API keys were presented',
    });
    expect(presentedInHeaders(headers({ 'x-api-key': 'x'.repeat(600) }))).toMatchObject({
      kind: 'malformed',
    });
  });

  it('leaves an Authorization header of another scheme alone (a proxy login is not a key)', () => {
    expect(presentedInHeaders(headers({ authorization: 'Basic dXNlcjpwYXNz' }))).toEqual({ kind: 'none' });
    expect(presentedInHeaders(headers({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'k' }))).toEqual({
      kind: 'key',
      secret: 'k',
    });
  });

  it('reads the key query parameter of a WebSocket upgrade', () => {
    expect(presentedInUpgrade(headers({}), '/ws?key=a&key=b')).toMatchObject({ kind: 'malformed' });
    expect(presentedInUpgrade(headers({}), '/ws/prices/AAPL?key=vgl_q')).toEqual({
      kind: 'key',
      secret: 'vgl_q',
    });
    expect(presentedInUpgrade(headers({ 'x-api-key': 'vgl_h' }), '/ws?key=vgl_q')).toMatchObject({
      kind: 'malformed',
    });
  });

  it('reads graphql-ws connectionParams: apiKey or authorization', () => {
    expect(presentedInConnectionParams({ apiKey: 'vgl_p' })).toEqual({ kind: 'key', secret: 'vgl_p' });
    expect(presentedInConnectionParams({ authorization: 'Bearer vgl_p' })).toEqual({
      kind: 'key',
      secret: 'vgl_p',
    });
    expect(presentedInConnectionParams({ apiKey: 42 })).toMatchObject({ kind: 'malformed' });
    expect(presentedInConnectionParams(undefined)).toEqual({ kind: 'none' });
    expect(presentedInConnectionParams({})).toEqual({ kind: 'none' });
  });
});
