import { type ExecutionResult, NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type DocumentLimits, documentLimitsRule, parseWithinLimits } from './document-limits.ts';
import { boundMessage, limitError, MAX_ERROR_MESSAGE_CHARS, withMessage } from './graphql-errors.ts';
import { checkVariables } from './variable-checks.ts';

export interface OperationGuardOptions {
  readonly limits: DocumentLimits;
  /** When false, `__schema` and `__type` are refused and validation stops suggesting names. */
  readonly introspection: boolean;
}

/**
 * Checks every operation before it runs, inside envelop, so HTTP, graphql-ws and the in-process
 * runner (MCP, REST tools) are held to the same rules: the document's size, shape and cost at
 * parse and validation, the variables before execution. It must come before the rate limiter:
 * a refused operation spends none of the client's budget.
 */
export function operationGuardPlugin(options: OperationGuardOptions): Plugin {
  const { limits, introspection } = options;
  const limitsRule = documentLimitsRule(limits);
  const tidy = (message: string) =>
    boundMessage(introspection ? message : message.replace(/ Did you mean [^?]*\?$/s, ''));
  const checkArgs = ({ args }: { args: { variableValues?: Record<string, unknown> | null } }) => {
    const problem = checkVariables(args.variableValues, limits.maxDepth);
    if (problem) throw problem;
    return { onExecuteDone: boundErrors, onSubscribeResult: boundErrors };
  };
  return {
    onParse({ setParseFn }) {
      setParseFn((source, parseOptions) => parseWithinLimits(source, parseOptions, limits));
    },
    onValidate({ addValidationRule, validateFn, setValidationFn }) {
      addValidationRule(limitsRule);
      // Validation rules recurse through fragments; a chain longer than the stack is still the
      // document's fault, answered like any limit rather than as a server failure.
      setValidationFn((...args) => {
        try {
          return validateFn(...args);
        } catch (error) {
          if (error instanceof RangeError) return [limitError('depth', limits.maxDepth)];
          throw error;
        }
      });
      if (!introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
      return ({ valid, result, setResult }) => {
        if (valid) return;
        // Over a limit, the rest of what validation found is noise (and was costly to find).
        const overLimit = result.filter((error) => error.extensions?.code === 'GRAPHQL_LIMIT_EXCEEDED');
        const errors = overLimit.length > 0 ? overLimit : result;
        setResult(errors.map((error) => withMessage(error, tidy(error.message))));
      };
    },
    onExecute: checkArgs,
    onSubscribe: checkArgs,
  };
}

/**
 * graphql-js quotes variable values in full when they do not coerce ("got invalid value ..."):
 * a result never carries a message longer than MAX_ERROR_MESSAGE_CHARS.
 */
function boundErrors(payload: {
  result: ExecutionResult | AsyncIterable<ExecutionResult>;
  setResult: (result: ExecutionResult) => void;
}): void {
  const { result } = payload;
  if (Symbol.asyncIterator in result || !result.errors) return;
  if (!result.errors.some((e) => e.message.length > MAX_ERROR_MESSAGE_CHARS)) return;
  payload.setResult({
    ...result,
    errors: result.errors.map((error) => withMessage(error, boundMessage(error.message))),
  });
}
