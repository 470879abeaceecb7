/**
 * What a provider said, made fit to show a caller: every surface repeats a provider's reason (error
 * messages, `details.attempts`, lineage rejections, the health board), so it must never carry a
 * credential, a whole HTML error page or an unbounded body.
 */

/** At most this many characters of one provider's reason reach a caller. */
export const MAX_REASON_CHARS = 160;

// Query parameters that hold a credential at the providers Vigil calls (Alpha Vantage `apikey`,
// Finnhub `token`, Yahoo's session `crumb`) or commonly elsewhere.
const SECRET_PARAM =
  /([?&;](?:api[_-]?key|apikey|token|access[_-]?token|key|secret|client[_-]?secret|signature|sig|password|crumb|auth)=)[^&;\s"'<>)#]+/gi;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi;
const HTML = /<\s*(?:!doctype|html|head|body|title|meta|div|p|h[1-6]|br|pre|center|script|style)\b/i;
const TITLE = /<title[^>]*>([^<]*)<\/title>/i;

/**
 * `text` with credentials in URLs masked, an HTML page replaced by its title, whitespace collapsed
 * and cut to `max` characters (an ellipsis says it was cut).
 */
export function providerReason(text: string, max = MAX_REASON_CHARS): string {
  let out = text.replace(SECRET_PARAM, '$1***').replace(URL_CREDENTIALS, '$1***@');
  const html = HTML.exec(out);
  if (html) {
    const title = TITLE.exec(out)?.[1]?.replace(/\s+/g, ' ').trim();
    out = `${out.slice(0, html.index).trimEnd()} (an HTML page${title ? `: ${title}` : ''})`.trimStart();
  }
  // Control characters and line breaks would break a one-line message (and log lines).
  out = Array.from(out, (c) => (c < ' ' || c === '\u007f' ? ' ' : c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > max ? `${out.slice(0, max - 1).trimEnd()}…` : out;
}
