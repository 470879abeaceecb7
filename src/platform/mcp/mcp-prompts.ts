import {
  ErrorCode,
  type GetPromptResult,
  type Prompt as PromptListing,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpProtocolError } from './mcp-errors.ts';
import { checkPrompts, type McpPrompt } from './mcp-prompt.ts';

interface Compiled {
  readonly prompt: McpPrompt;
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly listing: PromptListing;
}

/** The prompts one server serves, checked (checkPrompts) and listed once; `get` fills one in. */
export class PromptCatalog {
  readonly #byName = new Map<string, Compiled>();

  constructor(prompts: readonly McpPrompt[], toolNames: ReadonlySet<string>) {
    checkPrompts(prompts, toolNames);
    for (const prompt of prompts) {
      this.#byName.set(prompt.name, {
        prompt,
        schema: z.strictObject(prompt.arguments) as unknown as z.ZodType<Record<string, unknown>>,
        listing: listingOf(prompt),
      });
    }
  }

  list(): PromptListing[] {
    return [...this.#byName.values()].map((c) => c.listing);
  }

  /**
   * The prompt's messages with `args` filled in. An unknown prompt, a missing required argument,
   * an unknown one or a value its schema refuses is a JSON-RPC error (-32602) naming the argument.
   * An empty or blank value counts as not given (forms send "" for a field left empty).
   */
  get(name: string, args: Readonly<Record<string, string>> | undefined): GetPromptResult {
    const compiled = this.#byName.get(name);
    if (!compiled) {
      throw new McpProtocolError(
        ErrorCode.InvalidParams,
        `unknown prompt ${JSON.stringify(name.slice(0, 64))}; prompts: ${[...this.#byName.keys()].join(', ')}`,
        { code: 'UNKNOWN_PROMPT' },
      );
    }
    const given: Record<string, string> = {};
    for (const [key, value] of Object.entries(args ?? {})) if (value.trim() !== '') given[key] = value.trim();
    const parsed = compiled.schema.safeParse(given);
    if (!parsed.success) throw invalidArguments(compiled, parsed.error, given);
    const { prompt } = compiled;
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.text(parsed.data) } }],
    };
  }
}

function listingOf(prompt: McpPrompt): PromptListing {
  return {
    name: prompt.name,
    title: prompt.title,
    description: prompt.description,
    arguments: Object.entries(prompt.arguments).map(([name, schema]) => ({
      name,
      ...(schema.description ? { description: schema.description } : {}),
      required: !schema.safeParse(undefined).success,
    })),
  };
}

/** Every problem with the argument it is about, in one message; the list in `data.details.issues`. */
function invalidArguments(
  compiled: Compiled,
  error: z.ZodError,
  given: Readonly<Record<string, string>>,
): McpProtocolError {
  const issues = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(compiled.prompt.arguments).join(', ');
      return issue.keys.map((key) => ({ field: key, message: `not an argument of this prompt (${known})` }));
    }
    const field = issue.path.join('.') || '(arguments)';
    const missing = issue.path.length === 1 && given[String(issue.path[0])] === undefined;
    return [{ field, message: missing ? 'required' : issue.message }];
  });
  return new McpProtocolError(
    ErrorCode.InvalidParams,
    `invalid arguments for prompt ${compiled.prompt.name}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    { code: 'BAD_USER_INPUT', details: { issues, field: issues[0]?.field } },
  );
}
