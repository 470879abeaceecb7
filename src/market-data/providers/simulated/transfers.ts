import type { Transfer } from '../../types.ts';
import { DAY_MS, MINUTE_MS } from './calendar.ts';
import { poisson, type Rand, stream, toUniform } from './rng.ts';

/**
 * Large on-chain transfers, per asset and minute: a Poisson number of transfers of at least
 * USD 100,000 with lognormal sizes (median about USD 250,000; about 8 % above USD 1M), between
 * exchange wallets (labelled like `exchange:binance-hot-1`) and private wallets (addresses derived
 * from the seed, in each chain's notation, matching no real wallet). Demo activity adds 3-5 transfers
 * above USD 1.2M every minute, of the watched coins it tracks (of any asset it tracks when it tracks
 * none of them). The simulated chain watcher keeps 7 days of history.
 */
export const TRANSFER_RETENTION_MS = 7 * DAY_MS;
export const TRANSFER_FLOOR_USD = 100_000;

/** Asset, path of its USD price, chain notation, transfers per minute above the floor. */
export const TRANSFER_ASSETS: ReadonlyArray<{
  readonly asset: string;
  readonly chain: 'bitcoin' | 'evm' | 'solana' | 'xrp' | 'dogecoin';
  readonly perMinute: number;
}> = [
  { asset: 'BTC', chain: 'bitcoin', perMinute: 0.6 },
  { asset: 'ETH', chain: 'evm', perMinute: 0.5 },
  { asset: 'SOL', chain: 'solana', perMinute: 0.15 },
  { asset: 'XRP', chain: 'xrp', perMinute: 0.15 },
  { asset: 'DOGE', chain: 'dogecoin', perMinute: 0.05 },
  { asset: 'USDT', chain: 'evm', perMinute: 0.8 },
  { asset: 'USDC', chain: 'evm', perMinute: 0.4 },
];

const EXCHANGE_WALLETS = [
  'binance-hot-1',
  'binance-cold-2',
  'coinbase-hot-1',
  'coinbase-custody-3',
  'kraken-hot-2',
  'okx-hot-1',
  'bitfinex-cold-1',
  'bybit-hot-4',
];
/** Whale wallets per asset: a bounded pool, so the same large holders reappear. */
const WALLET_POOL = 400;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const HEX = '0123456789abcdef';

const S_TRANSFER = stream('transfer');
const S_DEMO_TRANSFER = stream('demo-transfer');
const S_WALLET = stream('wallet');

type Endpoint = { label: string; type: Transfer['fromType'] };

export class TransferFeed {
  /** Asset indexes the demo transfers are drawn from. */
  readonly #demoAssets: readonly number[];

  constructor(
    private readonly rand: Rand,
    private readonly demo: boolean,
    watchedCoins: readonly string[] = [],
  ) {
    const watched = TRANSFER_ASSETS.flatMap((a, i) => (watchedCoins.includes(a.asset) ? [i] : []));
    this.#demoAssets = watched.length > 0 ? watched : TRANSFER_ASSETS.map((_, i) => i);
  }

  #address(assetIndex: number, wallet: number): string {
    const { chain } = TRANSFER_ASSETS[assetIndex]!;
    const chars = (alphabet: string, n: number) => {
      let out = '';
      for (let i = 0; i < n; i++)
        out += alphabet[this.rand.int(alphabet.length, S_WALLET, assetIndex, wallet, i)];
      return out;
    };
    switch (chain) {
      case 'bitcoin':
        return `bc1q${chars(BECH32, 38)}`;
      case 'evm':
        return `0x${chars(HEX, 40)}`;
      case 'solana':
        return chars(BASE58, 44);
      case 'xrp':
        return `r${chars(BASE58, 33)}`;
      case 'dogecoin':
        return `D${chars(BASE58, 33)}`;
    }
  }

  #endpoints(assetIndex: number, u: (k: number) => number): [Endpoint, Endpoint] {
    const exchange = (k: number): Endpoint => ({
      label: `exchange:${EXCHANGE_WALLETS[Math.floor(u(k) * EXCHANGE_WALLETS.length)]}`,
      type: 'exchange',
    });
    const wallet = (k: number): Endpoint => ({
      label: `wallet:${this.#address(assetIndex, Math.floor(u(k) * WALLET_POOL))}`,
      type: 'wallet',
    });
    const route = u(4);
    if (route < 0.35) return [exchange(5), wallet(6)];
    if (route < 0.7) return [wallet(5), exchange(6)];
    if (route < 0.9) return [wallet(5), wallet(6)];
    if (route < 0.97) return [exchange(5), exchange(6)];
    return [{ label: 'unknown', type: 'unknown' }, wallet(6)];
  }

  /**
   * Transfers with time in [fromMs, nowMs] and value >= minUsd for the given asset indexes, ascending.
   * `usdPrice(asset, ms)` prices the asset at the transfer's time.
   */
  between(
    fromMs: number,
    nowMs: number,
    minUsd: number,
    assets: readonly number[],
    usdPrice: (asset: string, ms: number) => number | undefined,
  ): Transfer[] {
    const out: Transfer[] = [];
    const floor = Math.max(minUsd, TRANSFER_FLOOR_USD);
    const wanted = new Set(assets);
    for (let minute = Math.floor(fromMs / MINUTE_MS); minute * MINUTE_MS <= nowMs; minute++) {
      for (const a of assets) {
        const count = poisson(TRANSFER_ASSETS[a]!.perMinute, this.rand.uniform(S_TRANSFER, a, minute, 0));
        for (let k = 0; k < count; k++) {
          const h = this.rand.hash(S_TRANSFER, a, minute, 1 + k);
          const u = (i: number) => toUniform(this.rand.hash(S_TRANSFER, h, i));
          const usd =
            TRANSFER_FLOOR_USD + Math.exp(Math.log(150_000) + 1.3 * this.rand.normal(S_TRANSFER, h, 1));
          const time = minute * MINUTE_MS + Math.floor(u(2) * MINUTE_MS);
          this.#emit(out, a, `${minute}-${k}`, time, usd, floor, fromMs, nowMs, u, usdPrice);
        }
      }
      if (!this.demo) continue;
      const extra = 3 + this.rand.int(3, S_DEMO_TRANSFER, minute, 0);
      for (let k = 0; k < extra; k++) {
        const h = this.rand.hash(S_DEMO_TRANSFER, minute, 1 + k);
        const a = this.#demoAssets[Math.floor(toUniform(h) * this.#demoAssets.length)]!;
        if (!wanted.has(a)) continue;
        const u = (i: number) => toUniform(this.rand.hash(S_DEMO_TRANSFER, h, i));
        const usd = Math.max(
          1_200_000,
          Math.exp(Math.log(5e6) + 0.9 * this.rand.normal(S_DEMO_TRANSFER, h, 1)),
        );
        // Spread evenly over the minute, so that any 60 seconds hold several of them.
        const time = minute * MINUTE_MS + Math.floor(((k + u(2)) / extra) * MINUTE_MS);
        this.#emit(out, a, `${minute}-d${k}`, time, usd, floor, fromMs, nowMs, u, usdPrice);
      }
    }
    return out.sort((x, y) => x.time.getTime() - y.time.getTime() || (x.id < y.id ? -1 : 1));
  }

  #emit(
    out: Transfer[],
    assetIndex: number,
    key: string,
    time: number,
    usd: number,
    floor: number,
    fromMs: number,
    nowMs: number,
    u: (k: number) => number,
    usdPrice: (asset: string, ms: number) => number | undefined,
  ): void {
    if (usd < floor) return;
    if (time < fromMs || time > nowMs) return;
    const { asset } = TRANSFER_ASSETS[assetIndex]!;
    const price = usdPrice(asset, time);
    if (price === undefined) return;
    const [from, to] = this.#endpoints(assetIndex, u);
    out.push({
      id: `sim-${asset.toLowerCase()}-${key}`,
      asset,
      amount: Math.round((usd / price) * 1e8) / 1e8,
      usdValue: Math.round(usd * 100) / 100,
      from: from.label,
      to: to.label,
      fromType: from.type,
      toType: to.type,
      time: new Date(time),
    });
  }
}
