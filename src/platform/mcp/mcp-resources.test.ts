import { describe, expect, it } from 'vitest';
import { type MatchedResource, type McpResourceTemplate, ResourceSubscriptions } from './mcp-resources.ts';

const call = (async () => ({})) as never;

function resource(watch: McpResourceTemplate['watch']): MatchedResource {
  const template: McpResourceTemplate = {
    uriTemplate: 'test://things/{id}',
    name: 'things',
    title: 'Things',
    description: 'Test things.',
    mimeType: 'application/json',
    read: async () => ({}),
    watch,
  };
  return { template, params: { id: '1' } };
}

describe('ResourceSubscriptions', () => {
  it('keeps a tally shared by every session of how many subscriptions are open', async () => {
    const tally = { count: 0 };
    const stopped: string[] = [];
    const watching = resource((params) => () => stopped.push(params.id!));
    const a = new ResourceSubscriptions(5, tally);
    const b = new ResourceSubscriptions(5, tally);
    await a.add('test://things/1', watching, () => {}, call);
    await a.add('test://things/1', watching, () => {}, call);
    await a.add('test://things/2', watching, () => {}, call);
    await b.add('test://things/1', watching, () => {}, call);
    expect(tally.count).toBe(3);
    a.remove('test://things/1');
    a.remove('test://things/1');
    expect(tally.count).toBe(2);
    a.close();
    b.close();
    expect(tally.count).toBe(0);
    expect(stopped).toHaveLength(3);
  });

  it('gives the slot back when a watch fails to start', async () => {
    const tally = { count: 0 };
    const failing = resource(async () => {
      throw new Error('no such thing');
    });
    const subscriptions = new ResourceSubscriptions(5, tally);
    await expect(subscriptions.add('test://things/9', failing, () => {}, call)).rejects.toThrow(
      'no such thing',
    );
    expect(tally.count).toBe(0);
  });
});
