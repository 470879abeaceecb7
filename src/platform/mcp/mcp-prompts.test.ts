import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkPrompts, definePrompt } from './mcp-prompt.ts';
import { PromptCatalog } from './mcp-prompts.ts';
import { resourcePage } from './mcp-resource-list.ts';
import type { McpResourceTemplate } from './mcp-resources.ts';

const greet = definePrompt({
  name: 'greet',
  title: 'Greet',
  description: 'Says hello.',
  arguments: {
    who: z.string().min(2, { error: 'at least 2 characters' }).describe('Whom to greet'),
    times: z
      .string()
      .regex(/^[0-9]$/, { error: 'a digit' })
      .transform(Number)
      .optional()
      .describe('How often'),
  },
  tools: ['say'],
  text: ({ who, times = 1 }) => `call say with ${JSON.stringify({ who, times })}`,
});

function refusal(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('PromptCatalog', () => {
  const catalog = new PromptCatalog([greet], new Set(['say']));

  it('lists each argument with its description and whether it is required', () => {
    expect(catalog.list()).toEqual([
      {
        name: 'greet',
        title: 'Greet',
        description: 'Says hello.',
        arguments: [
          { name: 'who', description: 'Whom to greet', required: true },
          { name: 'times', description: 'How often', required: false },
        ],
      },
    ]);
  });

  it('fills the message in with the validated arguments; blank values count as not given', () => {
    expect(catalog.get('greet', { who: ' Ada ', times: '3' })).toEqual({
      description: 'Says hello.',
      messages: [{ role: 'user', content: { type: 'text', text: 'call say with {"who":"Ada","times":3}' } }],
    });
    const text = catalog.get('greet', { who: 'Ada', times: '  ' }).messages[0]!.content;
    expect(text).toEqual({ type: 'text', text: 'call say with {"who":"Ada","times":1}' });
  });

  it('answers -32602 naming the argument: missing, refused, unknown; and an unknown prompt', () => {
    const missing = refusal(() => catalog.get('greet', { times: '2' }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toBe('invalid arguments for prompt greet: who: required');
    expect(missing.data).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'who' } });
    const bad = refusal(() => catalog.get('greet', { who: 'A', times: 'x' }));
    expect(bad.message).toBe(
      'invalid arguments for prompt greet: who: at least 2 characters; times: a digit',
    );
    const unknown = refusal(() => catalog.get('greet', { who: 'Ada', loud: 'yes' }));
    expect(unknown.message).toBe(
      'invalid arguments for prompt greet: loud: not an argument of this prompt (who, times)',
    );
    const nothing = refusal(() => catalog.get('wave', {}));
    expect(nothing.code).toBe(-32602);
    expect(nothing.message).toBe('unknown prompt "wave"; prompts: greet');
  });

  it('refuses a prompt that names a tool the server does not serve, and two of one name', () => {
    expect(() => checkPrompts([greet], new Set(['other']))).toThrow(
      'MCP prompt greet names tools that are not served: say',
    );
    expect(() => new PromptCatalog([greet, greet], new Set(['say']))).toThrow(
      'two MCP prompts are named greet',
    );
  });
});

describe('resourcePage', () => {
  function template(name: string, uris: readonly string[] | undefined): McpResourceTemplate {
    return {
      uriTemplate: `test://${name}/{id}`,
      name,
      title: name,
      description: name,
      mimeType: 'application/json',
      read: async () => ({}),
      watch: () => () => {},
      ...(uris ? { list: () => uris.map((uri) => ({ uri, name: uri, title: uri })) } : {}),
    };
  }
  const templates = [
    template('a', ['test://a/1', 'test://a/2']),
    template('b', undefined),
    template('c', ['test://c/1']),
  ];

  it('lists the concrete resources of every template that has some, in pages', () => {
    const first = resourcePage(templates, undefined, 2);
    expect(first.resources.map((r) => r.uri)).toEqual(['test://a/1', 'test://a/2']);
    expect(first.resources[0]).toEqual({
      uri: 'test://a/1',
      name: 'test://a/1',
      title: 'test://a/1',
      mimeType: 'application/json',
    });
    expect(first.nextCursor).toBe('2');
    const second = resourcePage(templates, first.nextCursor, 2);
    expect(second).toEqual({
      resources: [
        { uri: 'test://c/1', name: 'test://c/1', title: 'test://c/1', mimeType: 'application/json' },
      ],
    });
    expect(resourcePage(templates, undefined).nextCursor).toBeUndefined();
  });

  it('refuses a cursor it did not give', () => {
    for (const cursor of ['x', '-1', '01', '4', '1e3']) {
      const error = refusal(() => resourcePage(templates, cursor, 2));
      expect(error.code).toBe(-32602);
      expect(error.message).toBe('cursor: not a cursor this server gave');
    }
  });
});
