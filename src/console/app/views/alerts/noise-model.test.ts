import { describe, expect, it } from 'vitest';
import { clientErrors } from './form-errors.ts';
import { emptyForm, toInput } from './form-model.ts';

describe("the alert form's resolutions and grouping", () => {
  const base = {
    ...emptyForm(),
    alertId: 'a1',
    name: 'A',
    methods: { ...emptyForm().methods, WEBHOOK: true },
    url: 'http://x/',
  };

  it('starts from the API defaults and sends no grouping until it is turned on', () => {
    const input = toInput(base);
    expect(input).toMatchObject({ sendResolved: false, resolveTimeoutSeconds: 300 });
    expect(input).not.toHaveProperty('grouping');
  });

  it('sends grouping for a watchdog-event alert only (the API refuses it on other triggers)', () => {
    const grouped = {
      ...base,
      sendResolved: true,
      grouped: true,
      groupBy: ['ASSET' as const],
      groupWaitSeconds: '0',
    };
    expect(toInput(grouped)).toMatchObject({
      sendResolved: true,
      grouping: {
        groupBy: ['ASSET'],
        groupWaitSeconds: 0,
        groupIntervalSeconds: 300,
        repeatIntervalSeconds: 14400,
      },
    });
    const price = {
      ...grouped,
      triggerType: 'PRICE_THRESHOLD' as const,
      symbol: 'AAPL',
      priceThreshold: '1',
    };
    expect(toInput(price)).not.toHaveProperty('grouping');
  });

  it('asks for whole seconds where the API takes an Int', () => {
    const errors = clientErrors(
      { ...base, grouped: true, resolveTimeoutSeconds: '5m', repeatIntervalSeconds: '1.5' },
      true,
    );
    expect(Object.keys(errors).sort()).toEqual([
      'grouping.repeat_interval_seconds',
      'resolve_timeout_seconds',
    ]);
  });
});
