import { describe, expect, it } from 'vitest';
import { readBoundedBody, readJsonBody } from './body.ts';

const encoder = new TextEncoder();

/** A request whose body arrives as a stream in `chunks`, with no declared length. */
function streamed(chunks: ReadonlyArray<string | Uint8Array>): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
  return new Request('http://localhost/x', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    duplex: 'half',
  } as RequestInit);
}

/** A request that declares its length, as an HTTP client sends a body it has whole. */
function declared(text: string): Request {
  const bytes = encoder.encode(text);
  return new Request('http://localhost/x', {
    method: 'POST',
    body: bytes,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) },
  });
}

describe('readBoundedBody', () => {
  it('reads the same bytes whether the length is declared or the body is streamed', async () => {
    const text = JSON.stringify({ query: '{ a }', variables: { s: 'é€😀'.repeat(50) } });
    const whole = await readBoundedBody(declared(text), 64 * 1024);
    const bytes = encoder.encode(text);
    // Chunk edges inside multi-byte characters, as a socket may cut them.
    const chunked = await readBoundedBody(
      streamed([bytes.subarray(0, 7), bytes.subarray(7, 91), bytes.subarray(91)]),
      64 * 1024,
    );
    expect(whole).toEqual(encoder.encode(text));
    expect(chunked).toEqual(encoder.encode(text));
  });

  it('refuses a declared length over the limit before reading', async () => {
    expect(await readBoundedBody(declared('x'.repeat(101)), 100)).toBeUndefined();
    expect(await readBoundedBody(declared('x'.repeat(100)), 100)).toHaveLength(100);
  });

  it('stops reading a streamed body at the limit', async () => {
    expect(await readBoundedBody(streamed(['x'.repeat(60), 'x'.repeat(60)]), 100)).toBeUndefined();
    expect(await readBoundedBody(streamed(['x'.repeat(50), 'x'.repeat(50)]), 100)).toHaveLength(100);
  });
});

describe('readJsonBody', () => {
  it('parses a declared-length body and names the body when it is not JSON or not UTF-8', async () => {
    expect(await readJsonBody(declared('{"a":1}'), { limitBytes: 100 })).toEqual({
      ok: true,
      value: { a: 1 },
    });
    const notJson = await readJsonBody(declared('{"a":'), { limitBytes: 100 });
    expect(notJson).toMatchObject({
      ok: false,
      failure: { code: 'BAD_USER_INPUT', details: { field: '(body)' } },
    });
    const notUtf8 = await readJsonBody(
      new Request('http://localhost/x', {
        method: 'POST',
        body: new Uint8Array([0x22, 0xff, 0x22]),
        headers: { 'content-type': 'application/json', 'content-length': '3' },
      }),
      { limitBytes: 100 },
    );
    expect(notUtf8).toMatchObject({ ok: false, failure: { message: 'the request body is not valid UTF-8' } });
  });
});
