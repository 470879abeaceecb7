/**
 * The bot API's URL for a token: `{CHAT_API_BASE_URL}/bot<token>/sendMessage`. The token is one
 * path segment and nothing else: a token is refused when written if it holds a character that
 * would end the segment or the path (`/`, `?`, `#`), a percent sign (an escape a proxy or the API
 * could decode into one), `..`, or anything outside the characters real bot tokens use; and
 * whatever token reaches the sender (the server's CHAT_BOT_TOKEN, or a row stored before the rule)
 * is percent-encoded into its segment, so no token can reach another path on the API's host.
 */

/** Bot tokens are `<bot id>:<secret>`, the secret of letters, digits, `_` and `-`; `.` and `~` are allowed too. */
const TOKEN_CHARACTERS = /^[A-Za-z0-9_:.~-]+$/;

/** Why `token` cannot be a bot token, or null when it can. Never quotes the token (it is a secret). */
export function botTokenProblem(token: string): string | null {
  if (/[/?#\\]/.test(token))
    return 'must be one path segment: it may not contain /, ?, # or \\ (the bot token, as the bot API gave it)';
  if (token.includes('..')) return 'may not contain ..';
  if (!TOKEN_CHARACTERS.test(token))
    return 'may hold only letters, digits and : _ - . ~ (the bot token, as the bot API gave it)';
  return null;
}

/** The sendMessage URL of `token` under `base`: the token percent-encoded into one segment. */
export function chatEndpoint(base: URL, token: string): URL {
  const url = new URL(base.href);
  // `:` (every bot token has one) may stand in a segment as it is; everything else is escaped.
  const segment = encodeURIComponent(token).replace(/%3A/gi, ':');
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/bot${segment}/sendMessage`;
  url.search = '';
  url.hash = '';
  return url;
}
