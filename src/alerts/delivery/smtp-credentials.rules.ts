/**
 * Whose SMTP login an email delivery uses, and when a password may go over the wire.
 *
 * - The server's login (SMTP_USER, SMTP_PASSWORD) is used only on the server's own connection: an
 *   alert that leaves `smtp_host` out and keeps SMTP_PORT, SMTP_USER (or leaves `smtp_user` out) and
 *   TLS. An alert that changes any of them logs in with its own `smtp_user` and `smtp_password`, or
 *   not at all, so the server's password never reaches a host, port, account or clear-text
 *   connection an alert's owner chose.
 * - A password is sent only over TLS (STARTTLS required, or implicit TLS), unless the operator
 *   lists the host in SMTP_PLAINTEXT_AUTH_HOSTS (a local relay without TLS).
 *
 * The rules are applied when an alert is written (the write is refused, naming the field), when a
 * delivery's target is built (`smtpLoginOf`), and again by the email sender before it connects
 * (`smtpLoginRefusal`), whatever built the target: a target that would send the server's login
 * elsewhere, or any password in clear text to a host not listed, fails without a connection.
 */
import { DEFAULT_SMTP_PORT, type EmailConfig } from '../alert.model.ts';
import { parseIp } from './ip-address.ts';

/** The server's SMTP settings (SMTP_*) and SMTP_PLAINTEXT_AUTH_HOSTS. */
export interface SmtpServerSettings {
  readonly host: string | undefined;
  readonly port: number;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** Hosts a password may be sent to without TLS (names or addresses, as written). */
  readonly plaintextAuthHosts: readonly string[];
}

export const NO_SMTP_SERVER: SmtpServerSettings = {
  host: undefined,
  port: DEFAULT_SMTP_PORT,
  user: undefined,
  password: undefined,
  plaintextAuthHosts: [],
};

const normalized = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/** One host, however written: names case-insensitively, addresses by value (`::1` is `[0:0::1]`). */
export function sameHost(a: string, b: string): boolean {
  const [x, y] = [normalized(a), normalized(b)];
  if (x === y) return true;
  const [ipX, ipY] = [parseIp(x), parseIp(y)];
  return ipX !== null && ipY !== null && ipX.version === ipY.version && ipX.value === ipY.value;
}

/** Whether SMTP_PLAINTEXT_AUTH_HOSTS lets a password go to `host` without TLS. */
export function allowsPlaintextAuth(smtp: SmtpServerSettings, host: string): boolean {
  return smtp.plaintextAuthHosts.some((listed) => sameHost(listed, host));
}

/** Whether the server's TLS policy holds: TLS, or a host the operator lets go without it. */
const tlsHolds = (smtp: SmtpServerSettings, host: string, useTls: boolean) =>
  useTls || allowsPlaintextAuth(smtp, host);

/** Whether an alert's email settings are the server's own connection and account. */
export function usesServerLogin(config: EmailConfig, smtp: SmtpServerSettings): boolean {
  return (
    smtp.host !== undefined &&
    smtp.user !== undefined &&
    config.smtpHost === undefined &&
    (config.smtpPort ?? smtp.port) === smtp.port &&
    (config.smtpUser ?? smtp.user) === smtp.user &&
    tlsHolds(smtp, smtp.host, config.useTls)
  );
}

/** The login of an alert's email: none, the alert's own, or the server's (added by the sender). */
export type SmtpLogin =
  | { readonly kind: 'none' }
  | { readonly kind: 'alert'; readonly user: string; readonly password: string | undefined }
  | { readonly kind: 'server' };

/** The login an alert's email delivery uses, from its settings and its own password (if any). */
export function smtpLoginOf(
  config: EmailConfig,
  alertPassword: string | undefined,
  smtp: SmtpServerSettings,
): SmtpLogin {
  if (alertPassword === undefined && usesServerLogin(config, smtp)) return { kind: 'server' };
  // Without a host of its own, an alert's password goes with the server's user name (not a secret).
  const user =
    config.smtpUser ?? (alertPassword !== undefined && config.smtpHost === undefined ? smtp.user : undefined);
  return user ? { kind: 'alert', user, password: alertPassword } : { kind: 'none' };
}

export interface LoginIssue {
  /** The field of `email_config` to name. */
  readonly field: 'smtp_password' | 'use_tls';
  readonly message: string;
}

/**
 * Why an alert's email settings may not be stored, or null: a user of its own without a password
 * (the server's password goes only with the server's settings), or a password over a connection
 * without TLS to a host SMTP_PLAINTEXT_AUTH_HOSTS does not list.
 */
export function loginIssue(
  config: EmailConfig,
  alertPassword: string | undefined,
  smtp: SmtpServerSettings,
): LoginIssue | null {
  const login = smtpLoginOf(config, alertPassword, smtp);
  if (login.kind !== 'alert') return null;
  if (login.password === undefined) {
    return {
      field: 'smtp_password',
      message:
        "is required with smtp_user: the server's SMTP_PASSWORD is used only with its own SMTP_HOST, " +
        'SMTP_PORT, SMTP_USER and TLS (leave smtp_user out to send without logging in)',
    };
  }
  const host = config.smtpHost ?? smtp.host;
  if (host !== undefined && !tlsHolds(smtp, host, config.useTls)) {
    return {
      field: 'use_tls',
      message: `is false, and a password is never sent without TLS unless SMTP_PLAINTEXT_AUTH_HOSTS lists the host (${normalized(host)} is not listed)`,
    };
  }
  return null;
}

/** The login fields of a delivery's target, from `smtpLoginOf`. */
export function loginFields(
  login: SmtpLogin,
  smtp: SmtpServerSettings,
): { smtpUser?: string; smtpPassword?: string; serverLogin?: true } {
  switch (login.kind) {
    case 'none':
      return {};
    case 'alert':
      return {
        smtpUser: login.user,
        ...(login.password !== undefined ? { smtpPassword: login.password } : {}),
      };
    case 'server':
      return smtp.user !== undefined && smtp.password !== undefined
        ? { smtpUser: smtp.user, smtpPassword: smtp.password, serverLogin: true }
        : {};
  }
}

/** What the email sender knows of the connection it is about to make. */
export interface SmtpConnection {
  readonly smtpHost: string;
  readonly smtpPort: number;
  readonly useTls: boolean;
  readonly smtpUser?: string | undefined;
  readonly smtpPassword?: string | undefined;
  /** The login is the server's SMTP_USER and SMTP_PASSWORD. */
  readonly serverLogin?: boolean | undefined;
}

/**
 * Why the SMTP connection about to be made must not be, or null. Checked last, by the sender,
 * whatever built the target: the server's login only on the server's host and port as its user,
 * under its TLS policy; any password only over TLS or to a host the operator listed.
 */
export function smtpLoginRefusal(connection: SmtpConnection, smtp: SmtpServerSettings): string | null {
  if (!connection.smtpUser) return null;
  if (connection.serverLogin) {
    const own =
      smtp.host !== undefined &&
      sameHost(connection.smtpHost, smtp.host) &&
      connection.smtpPort === smtp.port &&
      connection.smtpUser === smtp.user &&
      tlsHolds(smtp, smtp.host, connection.useTls);
    if (!own)
      return "SMTP login refused: the server's SMTP_USER and SMTP_PASSWORD are used only with SMTP_HOST on SMTP_PORT over TLS";
  }
  if (connection.smtpPassword && !tlsHolds(smtp, connection.smtpHost, connection.useTls))
    return 'SMTP login refused: a password is never sent without TLS (set use_tls, or list the host in SMTP_PLAINTEXT_AUTH_HOSTS)';
  return null;
}
