import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  getOperationAST,
  Kind,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { attachOffer, directSinkOf, isPushSource } from '../direct-delivery.ts';
import { declaresSharedResults } from '../shared-subscriptions.ts';

/**
 * Subscription events resolved once for every subscriber. A root subscription field marked with
 * `sharedResults()` (../shared-subscriptions.ts) promises that its events resolve the same whoever
 * subscribed (no resolver below it reads the caller), and that its source hands the same event
 * object to every subscriber that should see the same answer. Then an event is executed once per
 * (document, operation, variables) and every subscriber gets the same result object, which Vigil's
 * graphql-ws glue also writes to JSON once (graphql-ws-socket.ts). Events made for one subscriber
 * (a snapshot) are distinct objects and are executed for it alone, as before.
 *
 * Where the source can push and the transport can deliver directly (../direct-delivery.ts), a
 * result without errors goes from the shared execution straight to the subscriber's connection:
 * no iterator step, promise or envelope object per subscriber and event.
 */

type MaybePromise<T> = T | Promise<T>;

/** Per event object: results by operation key. Forgotten with the event. */
const results = new WeakMap<object, Map<string, MaybePromise<ExecutionResult>>>();
/** Per document and operation: whether every root field shares its results. */
const shareable = new WeakMap<DocumentNode, Map<string, boolean>>();
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 1;

export function sharedSubscriptionsPlugin(): Plugin {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      if (isShareable(args)) setSubscribeFn(subscribeShared as never);
    },
  };
}

function isShareable(args: ExecutionArgs): boolean {
  const name = args.operationName ?? '';
  let byOperation = shareable.get(args.document);
  if (!byOperation) {
    byOperation = new Map();
    shareable.set(args.document, byOperation);
  }
  let known = byOperation.get(name);
  if (known === undefined) {
    known = computeShareable(args);
    byOperation.set(name, known);
  }
  return known;
}

function computeShareable(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  const root = args.schema.getSubscriptionType();
  if (operation?.operation !== 'subscription' || !root) return false;
  const fields = root.getFields();
  const selections = operation.selectionSet.selections;
  return (
    selections.length > 0 &&
    selections.every(
      (s) => s.kind === Kind.FIELD && !s.directives?.length && declaresSharedResults(fields[s.name.value]),
    )
  );
}

async function subscribeShared(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const key = operationKey(args);
  const sink = directSinkOf(args.contextValue);
  if (sink && isPushSource(source)) {
    attachOffer(
      source,
      (event) => {
        if (!sink.accepts()) return false;
        const result = executeOnce(args, key, event);
        if (isPromiseLike(result) || result.errors !== undefined) return false;
        sink.deliver(result);
        return true;
      },
      sink.batch ? (deliverAll) => sink.batch!(deliverAll) : undefined,
    );
  }
  return mapEvents(source as AsyncIterableIterator<unknown>, (event) => executeOnce(args, key, event));
}

function isPromiseLike<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

function operationKey(args: ExecutionArgs): string {
  let id = documentIds.get(args.document);
  if (id === undefined) {
    id = nextDocumentId++;
    documentIds.set(args.document, id);
  }
  return `${id}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}`;
}

function executeOnce(args: ExecutionArgs, key: string, event: unknown): MaybePromise<ExecutionResult> {
  if (event === null || typeof event !== 'object') return execute({ ...args, rootValue: event });
  let byKey = results.get(event);
  if (!byKey) {
    byKey = new Map();
    results.set(event, byKey);
  }
  let result = byKey.get(key);
  if (!result) {
    result = execute({ ...args, rootValue: event });
    byKey.set(key, result);
  }
  return result;
}

/** `source` with each event mapped; returning or throwing ends the source too. */
function mapEvents<T, R>(
  source: AsyncIterableIterator<T>,
  map: (event: T) => MaybePromise<R>,
): AsyncIterableIterator<R> {
  const iterator: AsyncIterableIterator<R> = {
    async next() {
      const step = await source.next();
      if (step.done) return { done: true, value: undefined };
      return { done: false, value: await map(step.value) };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    async throw(error) {
      if (source.throw) await source.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
