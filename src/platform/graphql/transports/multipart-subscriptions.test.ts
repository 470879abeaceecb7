import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { MULTIPART_CONTENT_TYPE, multipartSubscriptionsPlugin } from './multipart-subscriptions.ts';

const APOLLO_ACCEPT =
  'multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/graphql-response+json,application/json;q=0.9';

function server(source: (state: { returned: boolean }) => AsyncGenerator<{ count: number }>) {
  const state = { returned: false };
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: 'type Query { ok: Boolean } type Subscription { count: Int }',
      resolvers: { Subscription: { count: { subscribe: () => source(state) } } },
    }),
    logging: false,
    plugins: [multipartSubscriptionsPlugin({ heartbeatMs: 10_000 })],
  });
  const post = (query: string, accept = APOLLO_ACCEPT) =>
    yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query }),
    });
  return { post, state };
}

const part = (json: string) =>
  `\r\n--graphql\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${json}`;

describe('multipart subscriptions (Apollo protocol)', () => {
  it('streams a heartbeat, each result as a payload, and the closing boundary', async () => {
    const { post } = server(async function* () {
      yield { count: 1 };
      yield { count: 2 };
    });
    const response = await post('subscription { count }');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(MULTIPART_CONTENT_TYPE);
    expect(await response.text()).toBe(
      part('{}') +
        part('{"payload":{"data":{"count":1}}}') +
        part('{"payload":{"data":{"count":2}}}') +
        '\r\n--graphql--\r\n',
    );
  });

  it('says it is alive while the source is quiet', async () => {
    const yoga = createYoga({
      schema: createSchema({
        typeDefs: 'type Query { ok: Boolean } type Subscription { count: Int }',
        resolvers: {
          Subscription: {
            count: {
              subscribe: async function* () {
                await new Promise((resolve) => setTimeout(resolve, 120));
                yield { count: 1 };
              },
            },
          },
        },
      }),
      logging: false,
      plugins: [multipartSubscriptionsPlugin({ heartbeatMs: 20 })],
    });
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: APOLLO_ACCEPT },
      body: JSON.stringify({ query: 'subscription { count }' }),
    });
    const text = await response.text();
    expect(text.split(part('{}')).length - 1).toBeGreaterThanOrEqual(2);
    expect(text.endsWith(`${part('{"payload":{"data":{"count":1}}}')}\r\n--graphql--\r\n`)).toBe(true);
  });

  it("sends a failing source's error as a last payload, without internals, then closes", async () => {
    const { post } = server(async function* () {
      yield { count: 1 };
      throw new Error('database password is hunter2');
    });
    const text = await (await post('subscription { count }')).text();
    expect(text).toContain(part('{"payload":{"data":{"count":1}}}'));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('"http"');
    expect(text.endsWith('\r\n--graphql--\r\n')).toBe(true);
  });

  it('returns the source when the client goes away', async () => {
    const { post, state } = server(async function* (s) {
      try {
        for (let i = 0; ; i++) {
          yield { count: i };
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        s.returned = true;
      }
    });
    const response = await post('subscription { count }');
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await expect.poll(() => state.returned).toBe(true);
  });

  it('leaves queries and other accepted types to Yoga', async () => {
    const { post } = server(async function* () {
      yield { count: 1 };
    });
    const query = await post('{ ok }', 'application/json');
    expect(query.headers.get('content-type')).toContain('application/json');
    const sse = await post('subscription { count }', 'text/event-stream');
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(await sse.text()).toContain('event: next');
    // Multipart without the subscription spec is Yoga's incremental delivery, which it refuses here.
    const plain = await post('subscription { count }', 'multipart/mixed');
    expect(plain.status).toBe(406);
  });
});
