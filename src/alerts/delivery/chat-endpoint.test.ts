import { describe, expect, it } from 'vitest';
import { botTokenProblem, chatEndpoint } from './chat-endpoint.ts';

describe('botTokenProblem', () => {
  it('accepts the tokens bot APIs hand out', () => {
    for (const token of ['123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', '1:a-b_c', 'abc.def~1']) {
      expect(botTokenProblem(token), token).toBeNull();
    }
  });

  it.each([
    ['123:abc/../../admin', /one path segment/],
    ['123:abc/getUpdates?', /one path segment/],
    ['123:abc?offset=1', /one path segment/],
    ['123:abc#x', /one path segment/],
    ['123:abc\\x', /one path segment/],
    ['123:a..b', /may not contain \.\./],
    ['123:abc/..', /one path segment/],
    ['123:abc%2F%2E%2E%2F', /only letters/],
    ['123:abc def', /only letters/],
    ['123:abc\n', /only letters/],
    ['123:äbc', /only letters/],
  ])('refuses %j', (token, message) => {
    const problem = botTokenProblem(token);
    expect(problem).toMatch(message);
    expect(problem).not.toContain(token);
  });
});

describe('chatEndpoint', () => {
  const base = new URL('https://api.example.org');

  it('puts the token in one segment under the base path', () => {
    expect(chatEndpoint(base, '123:abc').href).toBe('https://api.example.org/bot123:abc/sendMessage');
    expect(chatEndpoint(new URL('http://127.0.0.1:8081/proxy/'), '1:x').href).toBe(
      'http://127.0.0.1:8081/proxy/bot1:x/sendMessage',
    );
  });

  it.each([
    '123:abc/../../admin',
    '../../admin/x',
    '123:abc?x=1#y',
    '%2e%2e%2fadmin',
    '..',
    '123\\..\\..\\admin',
  ])('cannot leave its segment with %j', (token) => {
    const url = chatEndpoint(base, token);
    expect(url.origin).toBe('https://api.example.org');
    expect(url.search).toBe('');
    expect(url.hash).toBe('');
    const segments = url.pathname.split('/');
    expect(segments).toHaveLength(3);
    expect(segments[1]?.startsWith('bot')).toBe(true);
    expect(segments[2]).toBe('sendMessage');
    expect(decodeURIComponent(segments[1] ?? '')).toBe(`bot${token}`);
  });
});
