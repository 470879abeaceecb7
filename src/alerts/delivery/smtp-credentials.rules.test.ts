import { describe, expect, it } from 'vitest';
import type { EmailConfig } from '../alert.model.ts';
import {
  allowsPlaintextAuth,
  loginFields,
  loginIssue,
  NO_SMTP_SERVER,
  type SmtpServerSettings,
  sameHost,
  smtpLoginOf,
  smtpLoginRefusal,
} from './smtp-credentials.rules.ts';

const server: SmtpServerSettings = {
  host: 'relay.example.com',
  port: 587,
  user: 'vigil',
  password: 'server-pw',
  plaintextAuthHosts: [],
};
const email = (over: Partial<EmailConfig> = {}): EmailConfig => ({
  useTls: true,
  toEmails: ['ops@example.com'],
  ...over,
});

describe('smtpLoginOf', () => {
  it("uses the server's login only with the server's host, port, user and TLS", () => {
    expect(smtpLoginOf(email(), undefined, server)).toEqual({ kind: 'server' });
    expect(smtpLoginOf(email({ smtpPort: 587, smtpUser: 'vigil' }), undefined, server)).toEqual({
      kind: 'server',
    });
    // Each change leaves the alert without the server's login.
    expect(smtpLoginOf(email({ useTls: false }), undefined, server)).toEqual({ kind: 'none' });
    expect(smtpLoginOf(email({ smtpPort: 25 }), undefined, server)).toEqual({ kind: 'none' });
    expect(smtpLoginOf(email({ smtpHost: 'relay.example.com' }), undefined, server)).toEqual({
      kind: 'none',
    });
    expect(smtpLoginOf(email({ smtpHost: 'evil.example' }), undefined, server)).toEqual({ kind: 'none' });
    expect(smtpLoginOf(email({ smtpUser: 'attacker' }), undefined, server)).toEqual({
      kind: 'alert',
      user: 'attacker',
      password: undefined,
    });
  });

  it('lets the server keep its login without TLS only on a host SMTP_PLAINTEXT_AUTH_HOSTS lists', () => {
    const plain = { ...server, plaintextAuthHosts: ['RELAY.example.com.'] };
    expect(smtpLoginOf(email({ useTls: false }), undefined, plain)).toEqual({ kind: 'server' });
  });

  it("uses an alert's own password with its own user (or the server's user name on the server's host)", () => {
    expect(smtpLoginOf(email({ smtpHost: 'mx.example', smtpUser: 'me' }), 'mine', server)).toEqual({
      kind: 'alert',
      user: 'me',
      password: 'mine',
    });
    expect(smtpLoginOf(email(), 'mine', server)).toEqual({ kind: 'alert', user: 'vigil', password: 'mine' });
    expect(smtpLoginOf(email({ smtpHost: 'mx.example' }), 'mine', server)).toEqual({ kind: 'none' });
  });

  it('has nothing to use when the server has no login', () => {
    expect(smtpLoginOf(email(), undefined, NO_SMTP_SERVER)).toEqual({ kind: 'none' });
    expect(smtpLoginOf(email(), undefined, { ...server, user: undefined, password: undefined })).toEqual({
      kind: 'none',
    });
  });
});

describe('loginIssue', () => {
  it('refuses a user of its own without a password, naming smtp_password', () => {
    for (const config of [
      email({ smtpUser: 'attacker' }),
      email({ smtpUser: 'vigil', smtpPort: 2525 }),
      email({ smtpUser: 'vigil', useTls: false }),
      email({ smtpHost: 'mx.example', smtpUser: 'vigil' }),
    ]) {
      expect(loginIssue(config, undefined, server)).toMatchObject({
        field: 'smtp_password',
        message: expect.stringContaining("the server's SMTP_PASSWORD is used only with its own SMTP_HOST"),
      });
    }
  });

  it('refuses a password without TLS unless the host is listed, naming use_tls', () => {
    const own = email({ smtpHost: 'mx.example', smtpUser: 'me', useTls: false });
    expect(loginIssue(own, 'mine', server)).toEqual({
      field: 'use_tls',
      message:
        'is false, and a password is never sent without TLS unless SMTP_PLAINTEXT_AUTH_HOSTS lists the host (mx.example is not listed)',
    });
    expect(loginIssue(email({ useTls: false }), 'mine', server)).toMatchObject({ field: 'use_tls' });
    expect(loginIssue(own, 'mine', { ...server, plaintextAuthHosts: ['mx.example'] })).toBeNull();
  });

  it('accepts the server login, an own login over TLS, and no login at all', () => {
    expect(loginIssue(email(), undefined, server)).toBeNull();
    expect(loginIssue(email({ smtpHost: 'mx.example', smtpUser: 'me' }), 'mine', server)).toBeNull();
    expect(loginIssue(email({ useTls: false }), undefined, server)).toBeNull();
    expect(loginIssue(email({ smtpHost: 'mx.example', useTls: false }), undefined, server)).toBeNull();
  });
});

describe('loginFields', () => {
  it("carries the server's login only for a server login", () => {
    expect(loginFields({ kind: 'server' }, server)).toEqual({
      smtpUser: 'vigil',
      smtpPassword: 'server-pw',
      serverLogin: true,
    });
    expect(loginFields({ kind: 'alert', user: 'me', password: 'mine' }, server)).toEqual({
      smtpUser: 'me',
      smtpPassword: 'mine',
    });
    expect(loginFields({ kind: 'alert', user: 'me', password: undefined }, server)).toEqual({
      smtpUser: 'me',
    });
    expect(loginFields({ kind: 'none' }, server)).toEqual({});
  });
});

describe('smtpLoginRefusal', () => {
  const own = {
    smtpHost: 'relay.example.com',
    smtpPort: 587,
    useTls: true,
    smtpUser: 'vigil',
    smtpPassword: 'server-pw',
  };

  it("lets the server's login go only on the server's own connection", () => {
    expect(smtpLoginRefusal({ ...own, serverLogin: true }, server)).toBeNull();
    expect(
      smtpLoginRefusal({ ...own, smtpHost: 'RELAY.example.com.', serverLogin: true }, server),
    ).toBeNull();
    for (const other of [
      { smtpHost: 'evil.example' },
      { smtpPort: 25 },
      { useTls: false },
      { smtpUser: 'attacker' },
    ]) {
      expect(smtpLoginRefusal({ ...own, ...other, serverLogin: true }, server), JSON.stringify(other)).toBe(
        "SMTP login refused: the server's SMTP_USER and SMTP_PASSWORD are used only with SMTP_HOST on SMTP_PORT over TLS",
      );
    }
    // Without the server's settings, no connection is the server's.
    expect(smtpLoginRefusal({ ...own, serverLogin: true }, NO_SMTP_SERVER)).toMatch(/SMTP_HOST on SMTP_PORT/);
  });

  it('sends a password without TLS only to a listed host', () => {
    const plain = {
      smtpHost: '127.0.0.1',
      smtpPort: 25,
      useTls: false,
      smtpUser: 'me',
      smtpPassword: 'mine',
    };
    expect(smtpLoginRefusal(plain, server)).toBe(
      'SMTP login refused: a password is never sent without TLS (set use_tls, or list the host in SMTP_PLAINTEXT_AUTH_HOSTS)',
    );
    expect(smtpLoginRefusal(plain, { ...server, plaintextAuthHosts: ['127.0.0.1'] })).toBeNull();
    expect(smtpLoginRefusal({ ...plain, useTls: true }, server)).toBeNull();
  });

  it('has nothing to refuse without a login', () => {
    expect(
      smtpLoginRefusal({ smtpHost: 'x', smtpPort: 25, useTls: false, smtpPassword: 'unused' }, server),
    ).toBeNull();
  });
});

describe('hosts', () => {
  it('compares names case-insensitively and addresses by value', () => {
    expect(sameHost('Relay.Example.com.', 'relay.example.com')).toBe(true);
    expect(sameHost('[::1]', '0:0:0:0:0:0:0:1')).toBe(true);
    expect(sameHost('relay.example.com', 'relay.example.org')).toBe(false);
    expect(
      allowsPlaintextAuth({ ...server, plaintextAuthHosts: ['127.0.0.1', 'mx.local'] }, 'MX.local'),
    ).toBe(true);
    expect(allowsPlaintextAuth(server, 'relay.example.com')).toBe(false);
  });
});
