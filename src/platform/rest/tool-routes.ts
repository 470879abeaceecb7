import { z } from 'zod';
import type { ErrorTable } from '../errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonObject } from '../http/body.ts';
import type { HttpRoutes, RouteContext } from '../http/http-routes.ts';
import { errorResponse, json } from '../http/responses.ts';
import { toolSchemaOf } from '../operations/json-schema.ts';
import { scopeMeta } from '../operations/operation-scope.ts';
import { type Caller, invalidArguments, type Tool, type ToolFailure } from '../operations/tool.ts';

/**
 * The tool routes clients of the earlier implementation call (MCP-shaped JSON over plain HTTP),
 * generated from the tool list: each route runs the tool, which runs its GraphQL operation through
 * the same pipeline as `/graphql`. Unlike the original, an error is never a 200: the status comes
 * from the error table, and `/mcp/tools/call` still says `isError: true` for clients that read it.
 */

export const TOOL_ROUTES = {
  list: '/mcp/tools',
  call: '/mcp/tools/call',
  byName: '/mcp/tools/:name',
} as const;

/** Who may list the tools (a call needs its tool's own scope). */
export const TOOL_LIST_ACCESS = 'read' as const;

export interface ToolRoutesOptions {
  readonly tools: readonly Tool[];
  readonly errors: ErrorTable;
  readonly maxBodyBytes?: number;
}

/** Codes only the transport produces (never a tool's own failure). */
export const TOOL_TRANSPORT_CODES = {
  list: [],
  call: [
    'BAD_USER_INPUT',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'INVALID_ARGUMENTS',
    'UNKNOWN_TOOL',
  ],
  byName: ['BAD_USER_INPUT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_ARGUMENTS'],
} as const;

/** Codes no tool call can end with: routing, and GraphQL documents (tools are checked at build). */
export const NOT_TOOL_CODES: ReadonlySet<string> = new Set([
  'METHOD_NOT_ALLOWED',
  'UNKNOWN_TOOL',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
]);

export const toolCallRequestSchema = z
  .object({
    name: z.string().min(1).max(200).describe('The tool to call (see GET /mcp/tools).'),
    arguments: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The tool's arguments, as its input schema describes them (default {})."),
  })
  .describe('An MCP-style tool call.');

const textContent = z.array(z.object({ type: z.literal('text'), text: z.string() }));

export const toolCallResultSchema = z
  .object({
    content: textContent.describe('The value as JSON text, for clients that read only `content`.'),
    structuredContent: z.unknown().describe("The value itself (the tool's output schema)."),
    isError: z.literal(false),
  })
  .describe('A successful tool call.');

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('Stable error code (see ErrorCode).'),
      message: z.string().describe('What went wrong, naming the field when one is at fault.'),
      details: z.record(z.string(), z.unknown()).optional().describe('Machine-readable particulars.'),
    }),
    detail: z.string().describe('The message again, for clients of the earlier implementation.'),
  })
  .describe('Every error of a REST route.');

export const toolCallErrorSchema = errorBodySchema
  .extend({
    content: textContent.describe('The message, for clients that read only `content`.'),
    isError: z.literal(true),
  })
  .describe('A failed call on /mcp/tools/call: the error body plus the MCP-style `content` and `isError`.');

const annotationsSchema = z.object({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

export const toolListSchema = z
  .object({
    tools: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema (2020-12) of the arguments.'),
        outputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema (2020-12) of the value.'),
        annotations: annotationsSchema,
        _meta: z
          .record(z.string(), z.unknown())
          .describe(
            '`vigil/scope`: the scope a call needs; `vigil/scope-when`: `[{scope, arguments}]`, arguments that need another.',
          ),
      }),
    ),
  })
  .describe('Every tool, with the schemas of its arguments and of its value.');

export function toolListing(tools: readonly Tool[]): z.infer<typeof toolListSchema> {
  return {
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.definition.title,
      description: tool.definition.description,
      inputSchema: toolSchemaOf(tool.inputSchema, 'input', tool.name),
      outputSchema: toolSchemaOf(tool.definition.outputSchema, 'output', tool.name),
      annotations: tool.definition.annotations ?? {},
      _meta: scopeMeta(tool.scopes),
    })),
  };
}

export function registerToolRoutes(routes: HttpRoutes, options: ToolRoutesOptions): void {
  const { errors } = options;
  const limitBytes = options.maxBodyBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  if (byName.has('call')) throw new Error('a tool named "call" would be shadowed by /mcp/tools/call');
  // Built when first asked for: a start need not compute every tool's JSON Schema.
  let listing: z.infer<typeof toolListSchema> | undefined;
  // The route layer authenticated the caller; each tool's operation checks its own scope.
  const callerOf = (request: Request, context: RouteContext): Caller => ({ request, viewer: context.viewer });
  const CALLER = { access: 'caller' } as const;

  /** The error response; on /mcp/tools/call also the MCP-style `content` and `isError`. */
  const failure = (error: ToolFailure, envelope: boolean): Response =>
    errorResponse(
      error,
      errors,
      envelope ? { content: [{ type: 'text', text: error.message }], isError: true } : undefined,
    );

  const unknownTool = (name: string): ToolFailure => ({
    code: 'UNKNOWN_TOOL',
    message: `no tool is named ${JSON.stringify(name.slice(0, 100))} (tools: ${[...byName.keys()].join(', ')})`,
    details: { tools: [...byName.keys()] },
  });

  routes.add(
    'GET',
    TOOL_ROUTES.list,
    () => {
      listing ??= toolListing(options.tools);
      return json(listing);
    },
    { access: TOOL_LIST_ACCESS },
  );

  // Registered before /mcp/tools/:name, so that this path is never read as a tool's name.
  routes.add(
    'POST',
    TOOL_ROUTES.call,
    async (request, context) => {
      const body = await readJsonObject(request, { limitBytes, emptyAsObject: false });
      if (!body.ok) return failure(body.failure, true);
      const parsed = toolCallRequestSchema.safeParse(body.value);
      if (!parsed.success) return failure(invalidArguments(parsed.error), true);
      const tool = byName.get(parsed.data.name);
      if (!tool) return failure(unknownTool(parsed.data.name), true);
      const outcome = await tool.call(parsed.data.arguments ?? {}, callerOf(request, context));
      if (!outcome.ok) return failure(outcome.error, true);
      return json({
        content: [{ type: 'text', text: JSON.stringify(outcome.value ?? null) }],
        structuredContent: outcome.value ?? null,
        isError: false,
      });
    },
    CALLER,
  );

  routes.add(
    'POST',
    TOOL_ROUTES.byName,
    async (request, context) => {
      const name = context.params.name ?? '';
      const tool = byName.get(name);
      if (!tool) return failure(unknownTool(name), false);
      const body = await readJsonObject(request, { limitBytes, emptyAsObject: true });
      if (!body.ok) return failure(body.failure, false);
      const outcome = await tool.call(body.value, callerOf(request, context));
      if (!outcome.ok) return failure(outcome.error, false);
      return json(outcome.value ?? null);
    },
    CALLER,
  );
}
