import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { BaseContext } from './base-context.ts';

/** Runs one operation (`run`) inside whatever the app needs around it; returns what `run` returns. */
export type AroundOperation = <T>(context: BaseContext, run: () => T) => T;

/**
 * Lets the app wrap every operation on every transport (HTTP, graphql-ws, the in-process runner),
 * for instance in an AsyncLocalStorage scope that services below the resolvers read to attribute
 * work to the caller. The context factory cannot do this: it returns before execution starts.
 * Queries and mutations run wholly inside; for a subscription, its setup does.
 */
export function aroundOperationPlugin(around: AroundOperation): Plugin {
  const contextOf = (args: ExecutionArgs) => args.contextValue as BaseContext;
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => around(contextOf(args), () => executeFn(args)));
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => around(contextOf(args), () => subscribeFn(args)));
    },
  };
}
