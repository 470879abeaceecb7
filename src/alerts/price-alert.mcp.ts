import { z } from 'zod';
import { searchToolOf, symbolPromptArgument, toolCall } from '../market-data/analyse-symbol.mcp.ts';
import { definePrompt } from '../platform/mcp/mcp-prompt.ts';
import { DEFAULT_HYSTERESIS_PERCENT, PRICE_DIRECTIONS } from './alert.model.ts';
import { webhookConfig } from './alert-input.wire.ts';

/** A price as a user types it: digits with an optional decimal part, above zero. */
const thresholdArgument = z
  .string()
  .regex(/^[0-9]{1,15}(\.[0-9]{1,10})?$/, { error: 'a positive number like 200 or 0.35' })
  .transform(Number)
  .refine((n) => n > 0, { error: 'must be a positive price' })
  .describe('The price to cross, in the instrument’s currency: 200, 0.35');

/**
 * An alert id from the trigger (`price-btc-usdt-above-65000`), so asking twice for the same alert
 * is refused as a duplicate instead of creating a second one. Characters an id may not hold
 * become `-`, and the id keeps to its 64 characters.
 */
function alertIdOf(symbol: string, direction: string, threshold: number): string {
  const slug = symbol
    .toLowerCase()
    .replace(/[^a-z0-9_.:-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `price-${slug || 'symbol'}-${direction}-${threshold}`.slice(0, 64);
}

/**
 * `set-up-price-alert`: a price threshold alert, as tool calls. It checks the symbol and the
 * current price first (an alert fires on a crossing, so a price already past the threshold fires
 * only once it has come back and crosses again), writes the create-alert arguments out in full,
 * and tests the delivery.
 */
export const priceAlertPrompt = definePrompt({
  name: 'set-up-price-alert',
  title: 'Set up a price alert',
  description:
    'Steps and tool calls to be told when an instrument crosses a price: check the symbol and price, create the alert, test its delivery.',
  arguments: {
    symbol: symbolPromptArgument,
    threshold: thresholdArgument,
    direction: z
      .enum(PRICE_DIRECTIONS, { error: 'above or below' })
      .optional()
      .describe('above (default): when the price rises past the threshold; below: when it falls past it'),
    webhook_url: webhookConfig.shape.url
      .optional()
      .describe('Where to POST the alert (http or https); left out, the agent asks how to be told'),
  },
  tools: [
    'search-by-symbol',
    'search-by-coin',
    'list-alerts',
    'create-alert',
    'test-alert',
    'get-alert-deliveries',
  ],
  text: ({ symbol, threshold, direction = 'above', webhook_url }) => {
    const alertId = alertIdOf(symbol.written, direction, threshold);
    const create = {
      alert_id: alertId,
      name: `${symbol.written} ${direction} ${threshold}`,
      trigger: {
        type: 'price_threshold',
        symbol: symbol.written,
        price_threshold: threshold,
        direction,
        hysteresis_percent: DEFAULT_HYSTERESIS_PERCENT,
      },
      ...(webhook_url
        ? { delivery_methods: ['webhook'], webhook_config: { url: webhook_url } }
        : { delivery_methods: ['<email | chat | webhook>'] }),
    };
    const past = direction === 'above' ? 'already above' : 'already below';
    return [
      `Set up an alert that tells me when ${symbol.written} crosses ${direction} ${threshold}, with Vigil's tools:`,
      '',
      `1. ${toolCall(searchToolOf(symbol), { symbol: symbol.written, depth: 'quick' })}: check that Vigil knows ` +
        `the symbol and read the current price (\`cached.price\`). The alert fires when the price crosses ` +
        `${threshold}, not while it stays past it: if the price is ${past} ${threshold}, say so and ask ` +
        'whether to go on (it fires only after the price has come back and crosses again).',
      `2. ${toolCall('list-alerts', {})}: if an alert already has this trigger, show it instead of creating another.`,
      `3. ${toolCall('create-alert', create)}.`,
      webhook_url
        ? '   The alert is delivered to the webhook by POST.'
        : '   First ask how to be told, and put the answer in delivery_methods with its config: a webhook ' +
          '(webhook_config {url}), email (email_config {to_emails, ...}) or chat (chat_config {bot_token, ' +
          'chat_ids}).',
      '   Creating an alert needs an API key with the write scope; an error names the argument it refuses.',
      `4. ${toolCall('test-alert', { alert_id: alertId })}: sends a test notification by each delivery method; ` +
        `then ${toolCall('get-alert-deliveries', { alert_id: alertId })} says whether each arrived.`,
      '',
      `Tell me the alert_id (${alertId}), the current price, and whether the test notification was delivered.`,
    ].join('\n');
  },
});
