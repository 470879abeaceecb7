import { builder } from './builder.ts';

builder.queryType({ description: 'Read operations.' });
builder.mutationType({ description: 'Operations that change state.' });
builder.subscriptionType({
  description: 'Live results over graphql-ws (WebSocket, path /graphql) or Server-Sent Events.',
});
