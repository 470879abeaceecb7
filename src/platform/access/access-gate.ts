import type { IncomingMessage } from 'node:http';
import type { AppError } from '../errors.ts';
import {
  type ClientAddress,
  identifyClient,
  nodeHeaders,
  type Viewer,
  viewerOf,
} from '../http/client-identity.ts';
import type { Authenticator } from './authenticator.ts';
import {
  type Presented,
  presentedInConnectionParams,
  presentedInHeaders,
  presentedInUpgrade,
} from './credentials.ts';
import { anonymousPrincipal } from './principal.ts';

export type GateResult =
  | { readonly ok: true; readonly viewer: Viewer }
  | { readonly ok: false; readonly error: AppError; readonly address: ClientAddress };

interface HeaderReader {
  get(name: string): string | null | undefined;
}

/**
 * Who is calling, for every transport: the client's address (as limits count anonymous callers)
 * and, from what it presented, its principal. HTTP routes, WebSocket upgrades and graphql-ws
 * connections all ask here, so a key is read, verified and refused the same way on each.
 */
export class AccessGate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly trustProxyHops: number,
  ) {}

  /** AUTH_REQUIRED: a caller without a key is refused. */
  get required(): boolean {
    return this.authenticator.required;
  }

  address(headers: HeaderReader, req: IncomingMessage | undefined): ClientAddress {
    return identifyClient(headers, req, this.trustProxyHops);
  }

  /** The caller of a public route, which reads no key: anonymous, counted by address. */
  anonymous(headers: HeaderReader, req: IncomingMessage | undefined): Viewer {
    return viewerOf(this.address(headers, req), anonymousPrincipal(this.required));
  }

  /** An HTTP request: `Authorization: Bearer` or `X-API-Key`. */
  http(headers: HeaderReader, req: IncomingMessage | undefined): Promise<GateResult> {
    return this.#authenticate(presentedInHeaders(headers), this.address(headers, req));
  }

  /** A WebSocket upgrade: its headers, or the `key` query parameter. */
  upgrade(req: IncomingMessage): Promise<GateResult> {
    const headers = nodeHeaders(req);
    return this.#authenticate(presentedInUpgrade(headers, req.url), this.address(headers, req));
  }

  /**
   * graphql-ws `connectionParams`: a key there replaces the upgrade's; without one, the caller is
   * who the upgrade said.
   */
  async connectionParams(params: unknown, upgraded: Viewer): Promise<GateResult> {
    const presented = presentedInConnectionParams(params);
    if (presented.kind === 'none') {
      if (upgraded.principal.kind !== 'anonymous' || !this.required) return { ok: true, viewer: upgraded };
    }
    return this.#authenticate(presented, {
      clientId: upgraded.addressId,
      remoteAddress: upgraded.remoteAddress,
    });
  }

  async #authenticate(presented: Presented, address: ClientAddress): Promise<GateResult> {
    const outcome = await this.authenticator.authenticate(presented, address.clientId);
    return outcome.ok
      ? { ok: true, viewer: viewerOf(address, outcome.principal) }
      : { ok: false, error: outcome.error, address };
  }
}
