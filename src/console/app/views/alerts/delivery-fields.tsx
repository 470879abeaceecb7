/** The delivery part of the alert form: a checkbox per method, each revealing its settings. */
import { ChannelFields } from './channel-fields.tsx';
import { aria, Err, fid, SecretField, TextField } from './fields.tsx';
import type { Errors, FormState, Header } from './form-model.ts';
import { METHODS } from './model.ts';

type Setter = <K extends keyof FormState>(key: K, value: FormState[K]) => void;
interface Props {
  s: FormState;
  errors: Errors;
  set: Setter;
}

export function DeliveryFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-group" id={fid('delivery_methods')}>
      <legend>Delivery</legend>
      <div class="row">
        {METHODS.map((m) => (
          <label class="inline" key={m.id}>
            <input
              type="checkbox"
              checked={s.methods[m.id]}
              onChange={(e) =>
                set('methods', { ...s.methods, [m.id]: (e.target as HTMLInputElement).checked })
              }
              {...aria(errors, 'delivery_methods')}
            />
            {m.label}
          </label>
        ))}
      </div>
      <Err errors={errors} of="delivery_methods" />
      {s.methods.EMAIL ? <EmailFields s={s} errors={errors} set={set} /> : null}
      {s.methods.CHAT ? <ChatFields s={s} errors={errors} set={set} /> : null}
      {s.methods.WEBHOOK ? <WebhookFields s={s} errors={errors} set={set} /> : null}
      <ChannelFields s={s} errors={errors} set={set} />
    </fieldset>
  );
}

function EmailFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-method">
      <legend>Email</legend>
      <TextField
        of="email_config.to_emails"
        label="To emails"
        multiline
        value={s.toEmails}
        errors={errors}
        onValue={(v) => set('toEmails', v)}
        hint="One per line or comma-separated, 1 to 50."
      />
      <div class="af-cols">
        <TextField
          of="email_config.smtp_host"
          label="SMTP host"
          value={s.smtpHost}
          errors={errors}
          onValue={(v) => set('smtpHost', v)}
          hint="Empty: the server's SMTP_HOST."
        />
        <TextField
          of="email_config.smtp_port"
          label="SMTP port"
          inputMode="numeric"
          value={s.smtpPort}
          errors={errors}
          onValue={(v) => set('smtpPort', v)}
          hint="Empty: 587 with a host, else SMTP_PORT."
        />
        <TextField
          of="email_config.smtp_user"
          label="SMTP user"
          value={s.smtpUser}
          errors={errors}
          onValue={(v) => set('smtpUser', v)}
        />
        <SecretField
          of="email_config.smtp_password"
          label="SMTP password"
          secret={s.smtpPassword}
          errors={errors}
          onSecret={(v) => set('smtpPassword', v)}
        />
        <TextField
          of="email_config.from_email"
          label="From"
          type="email"
          value={s.fromEmail}
          errors={errors}
          onValue={(v) => set('fromEmail', v)}
          hint="Empty: the server's SMTP_FROM_EMAIL."
        />
      </div>
      <label class="inline">
        <input
          id={fid('email_config.use_tls')}
          type="checkbox"
          checked={s.useTls}
          onChange={(e) => set('useTls', (e.target as HTMLInputElement).checked)}
          {...aria(errors, 'email_config.use_tls')}
        />
        Use TLS
      </label>
      <Err errors={errors} of="email_config.use_tls" />
    </fieldset>
  );
}

function ChatFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-method">
      <legend>Chat</legend>
      <TextField
        of="chat_config.chat_ids"
        label="Chat ids"
        multiline
        value={s.chatIds}
        errors={errors}
        onValue={(v) => set('chatIds', v)}
        hint="One per line or comma-separated, 1 to 50."
      />
      <SecretField
        of="chat_config.bot_token"
        label="Bot token"
        secret={s.botToken}
        errors={errors}
        onSecret={(v) => set('botToken', v)}
      />
      <p class="hint">Without a token of its own, the alert uses the server's CHAT_BOT_TOKEN.</p>
    </fieldset>
  );
}

function WebhookFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-method">
      <legend>Webhook</legend>
      <div class="af-cols">
        <TextField
          of="webhook_config.url"
          label="Webhook URL"
          type="url"
          inputMode="url"
          value={s.url}
          errors={errors}
          onValue={(v) => set('url', v)}
          hint="http or https; private addresses are refused unless the server allows them."
        />
        <div class="af-field">
          <label for={fid('webhook_config.method')}>HTTP method</label>
          <select
            id={fid('webhook_config.method')}
            value={s.webhookMethod}
            onChange={(e) => set('webhookMethod', (e.target as HTMLSelectElement).value as 'POST' | 'PUT')}
            {...aria(errors, 'webhook_config.method')}
          >
            <option value="POST">POST</option>
            <option value="PUT">PUT</option>
          </select>
          <Err errors={errors} of="webhook_config.method" />
        </div>
      </div>
      <Headers headers={s.headers} errors={errors} onHeaders={(h) => set('headers', h)} />
      <div class="af-cols">
        <SecretField
          of="webhook_config.auth_token"
          label="Auth token"
          secret={s.authToken}
          errors={errors}
          onSecret={(v) => set('authToken', v)}
        />
        <SecretField
          of="webhook_config.signing_secret"
          label="Signing secret"
          secret={s.signingSecret}
          errors={errors}
          onSecret={(v) => set('signingSecret', v)}
        />
      </div>
    </fieldset>
  );
}

function Headers(p: { headers: Header[]; errors: Errors; onHeaders: (h: Header[]) => void }) {
  const change = (i: number, part: Partial<Header>) =>
    p.onHeaders(p.headers.map((h, j) => (j === i ? { ...h, ...part } : h)));
  return (
    <fieldset class="af-headers" id={fid('webhook_config.headers')}>
      <legend>Headers</legend>
      {p.headers.length === 0 ? <p class="hint">No custom headers.</p> : null}
      {p.headers.map((h, i) => {
        const key = `webhook_config.headers.${i}`;
        return (
          <div class="af-header" key={i}>
            <div class="af-header-row">
              <label for={`${fid(key)}-name`}>Header {i + 1} name</label>
              <input
                id={`${fid(key)}-name`}
                value={h.name}
                spellcheck={false}
                onInput={(e) => change(i, { name: (e.target as HTMLInputElement).value })}
                {...aria(p.errors, key)}
              />
              <label for={`${fid(key)}-value`}>Header {i + 1} value</label>
              <input
                id={`${fid(key)}-value`}
                value={h.value}
                spellcheck={false}
                onInput={(e) => change(i, { value: (e.target as HTMLInputElement).value })}
                {...aria(p.errors, key)}
              />
              <button type="button" onClick={() => p.onHeaders(p.headers.filter((_, j) => j !== i))}>
                Remove header {i + 1}
              </button>
            </div>
            <Err errors={p.errors} of={key} />
          </div>
        );
      })}
      <Err errors={p.errors} of="webhook_config.headers" />
      <button type="button" onClick={() => p.onHeaders([...p.headers, { name: '', value: '' }])}>
        Add header
      </button>
    </fieldset>
  );
}
