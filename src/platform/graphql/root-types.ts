import { builder } from './builder.ts';

builder.queryType({ description: 'Read operations.' });
builder.subscriptionType({
  description: 'Live results over graphql-ws (WebSocket, path /graphql) or Server-Sent Events.',
});
