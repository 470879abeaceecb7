import { ErrorCode, type ListResourcesResult } from '@modelcontextprotocol/sdk/types.js';
import { McpProtocolError } from './mcp-errors.ts';
import type { McpResourceTemplate } from './mcp-resources.ts';

/** Resources one `resources/list` answer holds at most; `nextCursor` gives the rest. */
export const RESOURCES_PER_PAGE = 100;

/**
 * One page of every template's concrete resources, in template order. The cursor is the offset of
 * the page's first resource, as the previous page's `nextCursor` gave it; anything else is refused.
 */
export function resourcePage(
  templates: readonly McpResourceTemplate[],
  cursor: string | undefined,
  perPage = RESOURCES_PER_PAGE,
): ListResourcesResult {
  const all = templates.flatMap((template) =>
    (template.list?.() ?? []).map((resource) => ({ ...resource, mimeType: template.mimeType })),
  );
  const start = cursor === undefined ? 0 : Number(cursor);
  if (cursor !== undefined && (!/^(0|[1-9][0-9]{0,8})$/.test(cursor) || start > all.length)) {
    throw new McpProtocolError(ErrorCode.InvalidParams, 'cursor: not a cursor this server gave', {
      code: 'BAD_USER_INPUT',
      details: { field: 'cursor' },
    });
  }
  const end = start + perPage;
  return {
    resources: all.slice(start, end),
    ...(end < all.length ? { nextCursor: String(end) } : {}),
  };
}
