/**
 * The settings of the channels that take one URL or key: Slack, Discord and Teams (a webhook URL
 * that carries its token, so write-only like every secret), Alertmanager (a receiver URL, shown
 * as stored) and PagerDuty (a write-only routing key).
 */
import { SecretField, TextField } from './fields.tsx';
import type { Errors, FormState, Secret } from './form-model.ts';

type Setter = <K extends keyof FormState>(key: K, value: FormState[K]) => void;
interface Props {
  s: FormState;
  errors: Errors;
  set: Setter;
}

type WebhookChannel = 'slackUrl' | 'discordUrl' | 'teamsUrl';
const WEBHOOKS: readonly {
  method: 'SLACK' | 'DISCORD' | 'TEAMS';
  field: WebhookChannel;
  of: string;
  legend: string;
  hint: string;
}[] = [
  {
    method: 'SLACK',
    field: 'slackUrl',
    of: 'slack_config.webhook_url',
    legend: 'Slack',
    hint: 'An incoming webhook, https://hooks.slack.com/services/…',
  },
  {
    method: 'DISCORD',
    field: 'discordUrl',
    of: 'discord_config.webhook_url',
    legend: 'Discord',
    hint: 'A channel webhook, https://discord.com/api/webhooks/…',
  },
  {
    method: 'TEAMS',
    field: 'teamsUrl',
    of: 'teams_config.webhook_url',
    legend: 'Teams',
    hint: 'An incoming webhook (…webhook.office.com) or a Workflows URL (…logic.azure.com).',
  },
];

export function ChannelFields({ s, errors, set }: Props) {
  return (
    <>
      {WEBHOOKS.filter((w) => s.methods[w.method]).map((w) => (
        <fieldset class="af-method" key={w.method}>
          <legend>{w.legend}</legend>
          <SecretField
            of={w.of}
            label={`${w.legend} webhook URL`}
            secret={s[w.field]}
            errors={errors}
            onSecret={(v: Secret) => set(w.field, v)}
          />
          <p class="hint">{w.hint} The URL carries the channel's token.</p>
        </fieldset>
      ))}
      {s.methods.ALERTMANAGER ? (
        <fieldset class="af-method">
          <legend>Alertmanager</legend>
          <TextField
            of="alertmanager_config.url"
            label="Alertmanager receiver URL"
            type="url"
            inputMode="url"
            value={s.alertmanagerUrl}
            errors={errors}
            onValue={(v) => set('alertmanagerUrl', v)}
            hint="Gets Alertmanager's webhook body (version 4); private addresses are refused unless allowed."
          />
        </fieldset>
      ) : null}
      {s.methods.PAGERDUTY ? (
        <fieldset class="af-method">
          <legend>PagerDuty</legend>
          <SecretField
            of="pagerduty_config.routing_key"
            label="PagerDuty routing key"
            secret={s.routingKey}
            errors={errors}
            onSecret={(v) => set('routingKey', v)}
          />
          <p class="hint">The Events API v2 integration key of the service, 20 to 64 letters and digits.</p>
        </fieldset>
      ) : null}
    </>
  );
}
