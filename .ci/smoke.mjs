// CI smoke test of a running Vigil: readiness, one GraphQL query over HTTP, one graphql-ws
// subscription. Usage: node .ci/smoke.mjs http://127.0.0.1:PORT
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const base = process.argv[2];
if (!base) throw new Error('usage: node .ci/smoke.mjs <base-url>');

const fail = (message) => {
  console.error(`smoke: FAIL ${message}`);
  process.exit(1);
};

const ready = await fetch(`${base}/readyz`);
if (ready.status !== 200) fail(`/readyz answered ${ready.status}: ${await ready.text()}`);
console.error('smoke: /readyz 200');

const answer = await fetch(`${base}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ serverInfo { databaseMode version } }' }),
});
const body = await answer.json();
if (body?.data?.serverInfo?.databaseMode !== 'PGLITE')
  fail(`unexpected GraphQL answer ${JSON.stringify(body)}`);
console.error(`smoke: GraphQL query ok ${JSON.stringify(body.data)}`);

const client = createClient({
  url: `${base.replace(/^http/, 'ws')}/graphql`,
  webSocketImpl: WebSocket,
  retryAttempts: 0,
});
const ticks = await new Promise((resolve, reject) => {
  const seen = [];
  const timer = setTimeout(() => reject(new Error('no subscription data within 10 s')), 10_000);
  const stop = client.subscribe(
    { query: 'subscription { time(intervalMs: 200) }' },
    {
      next: (result) => {
        if (result.errors) return reject(new Error(JSON.stringify(result.errors)));
        seen.push(result.data.time);
        if (seen.length === 2) {
          clearTimeout(timer);
          stop();
          resolve(seen);
        }
      },
      error: reject,
      complete: () => {},
    },
  );
}).catch((error) => fail(`graphql-ws subscription: ${error.message}`));
await client.dispose();
console.error(`smoke: graphql-ws subscription ok ${JSON.stringify(ticks)}`);
