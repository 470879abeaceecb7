/**
 * Where the chat services' incoming webhooks live: a URL given for Slack must be one of Slack's
 * (https://hooks.slack.com/...), so a mistyped or foreign URL is refused when the alert is written
 * instead of posting the alert's text somewhere else; one for Discord, one of Discord's
 * (https://discord.com/api/webhooks/...). A host listed in ALERT_DELIVERY_ALLOWED_HOSTS
 * is accepted on any scheme and path (a relay, a proxy, a local receiver in tests).
 */
import { literalAddress } from './literal-host.ts';
import { type AllowedHosts, allowsAddress } from './ssrf.ts';

export interface HookService {
  /** As named in messages: `a Slack incoming webhook`. */
  readonly what: string;
  readonly hosts: readonly string[];
  readonly pathPrefix: string;
  /** Hosts under these domains are the service's too (`<tenant>.webhook.office.com`). */
  readonly domains?: readonly string[];
}

export const DISCORD_HOOK: HookService = {
  what: 'a Discord webhook',
  hosts: ['discord.com', 'discordapp.com', 'canary.discord.com', 'ptb.discord.com'],
  pathPrefix: '/api/webhooks/',
};

/** Teams: an Office 365 connector (`*.webhook.office.com`) or a Workflows trigger (`*.logic.azure.com`). */
export const TEAMS_HOOK: HookService = {
  what: 'a Microsoft Teams incoming webhook or Workflows',
  hosts: ['outlook.office.com'],
  pathPrefix: '/',
  domains: ['webhook.office.com', 'logic.azure.com'],
};

export const SLACK_HOOK: HookService = {
  what: 'a Slack incoming webhook',
  hosts: ['hooks.slack.com'],
  pathPrefix: '/services/',
};

function listed(host: string, allowed: AllowedHosts): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (allowed.hosts.has(name)) return true;
  const address = literalAddress(name);
  return address !== null && allowsAddress(allowed, address);
}

function serviceHost(host: string, service: HookService): boolean {
  return (
    service.hosts.includes(host) || (service.domains ?? []).some((domain) => host.endsWith(`.${domain}`))
  );
}

/** Why `url` is not the service's webhook URL, or null when it is (or its host is allowed). */
export function hookUrlProblem(url: string, service: HookService, allowed: AllowedHosts): string | null {
  if (!URL.canParse(url)) return 'must be a URL';
  const parsed = new URL(url);
  if (listed(parsed.hostname, allowed)) return null;
  const domain = service.domains?.[0];
  const expected = `https://${domain ? `<name>.${domain}` : service.hosts[0]}${service.pathPrefix}...`;
  if (parsed.protocol !== 'https:') return `must be an https URL (${expected})`;
  if (!serviceHost(parsed.hostname.toLowerCase(), service) || !parsed.pathname.startsWith(service.pathPrefix))
    return `must be ${service.what} URL (${expected}), or a host listed in ALERT_DELIVERY_ALLOWED_HOSTS`;
  return null;
}
