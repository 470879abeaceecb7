import {
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLInt,
  GraphQLObjectType,
  GraphQLSchema,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { type EventOffer, pushSource, setDirectSink } from '../direct-delivery.ts';
import { sharedResults } from '../shared-subscriptions.ts';
import { sharedSubscriptionsPlugin } from './shared-execution.ts';

interface Event {
  readonly value: number;
}

/** A source of events pushed by the test: offered to the consumer first, else read through the iterator. */
function source() {
  const queue: Event[] = [];
  let offer: EventOffer | undefined;
  let wake: (() => void) | undefined;
  let done = false;
  const iterator: AsyncIterableIterator<Event> = {
    async next() {
      while (!done && queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      if (done) return { done: true, value: undefined };
      return { done: false, value: queue.shift()! };
    },
    async return() {
      done = true;
      wake?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return {
    stream: pushSource(iterator, (consumer) => (offer = consumer)),
    emit(event: Event) {
      if (queue.length === 0 && offer?.(event)) return;
      queue.push(event);
      wake?.();
    },
  };
}

const Tick = new GraphQLObjectType<Event>({
  name: 'Tick',
  fields: {
    value: { type: GraphQLInt },
    /** Fails on odd values: such results carry errors. */
    even: {
      type: GraphQLInt,
      resolve: (event) => {
        if (event.value % 2 === 1) throw new Error(`odd value ${event.value}`);
        return event.value;
      },
    },
  },
});

function schemaWith(sourceOf: () => AsyncIterable<Event>) {
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        ticks: { type: Tick, ...sharedResults(), subscribe: sourceOf, resolve: (event: Event) => event },
      },
    }),
  });
}

/** The plugin's subscribe function, as envelop would call it. */
function sharedSubscribe(args: ExecutionArgs) {
  let subscribe: ((args: ExecutionArgs) => Promise<unknown>) | undefined;
  const plugin = sharedSubscriptionsPlugin();
  (plugin.onSubscribe as (payload: unknown) => void)({
    args,
    setSubscribeFn: (fn: typeof subscribe) => {
      subscribe = fn;
    },
  });
  if (!subscribe) throw new Error('the operation was not found shareable');
  return subscribe(args) as Promise<AsyncIterableIterator<ExecutionResult>>;
}

function sinkFor(context: object, accepting = () => true) {
  const delivered: ExecutionResult[] = [];
  setDirectSink(context, { accepts: accepting, deliver: (result) => delivered.push(result) });
  return delivered;
}

describe('shared subscriptions with direct delivery', () => {
  it('hand a result without errors to the sink, the same object for every subscriber of the operation', async () => {
    // Each subscription has its own source; a live event is the same object in all of them.
    const sources = [source(), source(), source()];
    let next = 0;
    const schema = schemaWith(() => sources[next++]!.stream);
    const document = parse('subscription { ticks { value } }');
    const contexts = [{}, {}, {}];
    const sinks = contexts.map((context) => sinkFor(context));
    const iterators = [
      await sharedSubscribe({ schema, document, contextValue: contexts[0] }),
      await sharedSubscribe({ schema, document, contextValue: contexts[1] }),
      // Another selection of the same field is another operation: executed apart.
      await sharedSubscribe({
        schema,
        document: parse('subscription { ticks { even } }'),
        contextValue: contexts[2],
      }),
    ];
    const event = { value: 2 };
    for (const s of sources) s.emit(event);
    expect(sinks[0]).toEqual([{ data: { ticks: { value: 2 } } }]);
    expect(sinks[1]![0]).toBe(sinks[0]![0]);
    expect(sinks[2]).toEqual([{ data: { ticks: { even: 2 } } }]);
    for (const iterator of iterators) await iterator.return?.();
  });

  it('leave a result with errors, or one the sink does not accept now, to the iterator', async () => {
    const s = source();
    const schema = schemaWith(() => s.stream);
    const context = {};
    let accepting = true;
    const delivered = sinkFor(context, () => accepting);
    const iterator = await sharedSubscribe({
      schema,
      document: parse('subscription { ticks { value even } }'),
      contextValue: context,
    });
    s.emit({ value: 2 });
    s.emit({ value: 3 });
    expect(delivered).toEqual([{ data: { ticks: { value: 2, even: 2 } } }]);
    const failed = await iterator.next();
    expect(failed.value?.errors?.[0]?.message).toBe('odd value 3');
    accepting = false;
    s.emit({ value: 4 });
    expect((await iterator.next()).value).toEqual({ data: { ticks: { value: 4, even: 4 } } });
    expect(delivered).toHaveLength(1);
    await iterator.return?.();
  });

  it('deliver through the iterator where the transport registered no sink', async () => {
    const s = source();
    const iterator = await sharedSubscribe({
      schema: schemaWith(() => s.stream),
      document: parse('subscription { ticks { value } }'),
      contextValue: {},
    });
    s.emit({ value: 6 });
    expect((await iterator.next()).value).toEqual({ data: { ticks: { value: 6 } } });
    await iterator.return?.();
  });
});
