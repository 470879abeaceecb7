import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** A file served as is, kept in memory with its gzipped form (the docs viewer's, the console's). */
export interface StaticAsset {
  readonly body: Uint8Array;
  readonly gzipped: Uint8Array;
  readonly type: string;
}

const compress = promisify(gzip);

export async function staticAsset(body: Uint8Array, type: string, level?: number): Promise<StaticAsset> {
  return { body, type, gzipped: new Uint8Array(await compress(body, level === undefined ? {} : { level })) };
}

/**
 * The answer for a file whose name carries its version: gzipped for a client that takes it, cached
 * for a year.
 */
export function staticAssetResponse(request: Request, file: StaticAsset): Response {
  const gzipOk = /\bgzip\b/i.test(request.headers.get('accept-encoding') ?? '');
  const body = gzipOk ? file.gzipped : file.body;
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: {
      'content-type': file.type,
      'content-length': String(body.byteLength),
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
      ...(gzipOk ? { 'content-encoding': 'gzip' } : {}),
    },
  });
}
