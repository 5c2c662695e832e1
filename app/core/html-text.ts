/** The readable text of HTML (fetch_url, the knowledge base's HTML documents): linear scans, no backtracking regex over a page. */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

const HIDDEN = ['script', 'style', 'noscript', 'template'];

/** `html` without the contents of hidden elements and comments; one linear scan (no backtracking regex over the page). */
export function withoutHidden(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let at = 0;
  while (at < html.length) {
    const open = lower.indexOf('<', at);
    if (open < 0) break;
    const comment = lower.startsWith('<!--', open);
    const hidden = comment
      ? undefined
      : HIDDEN.find((name) => lower.startsWith(name, open + 1) && !/[a-z0-9-]/.test(lower[open + 1 + name.length] ?? ''));
    if (!comment && !hidden) {
      out += html.slice(at, open + 1);
      at = open + 1;
      continue;
    }
    out += `${html.slice(at, open)} `;
    const close = comment ? '-->' : `</${hidden}`;
    const end = lower.indexOf(close, open + 1);
    if (end < 0) return out;
    at = comment ? end + 3 : Math.max(end + 1, lower.indexOf('>', end) + 1);
  }
  return out + html.slice(at);
}

/** The text of an HTML page: scripts, styles, comments and tags removed, common entities decoded, whitespace collapsed. */
export function readableText(html: string): string {
  return withoutHidden(html)
    .replace(/<[^<>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return safeChar(Number.parseInt(name.slice(2), 16)) ?? entity;
      if (name.startsWith('#')) return safeChar(Number(name.slice(1))) ?? entity;
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const safeChar = (code: number) => (Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined);
