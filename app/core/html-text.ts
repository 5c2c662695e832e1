/** The readable text of HTML (fetch_url, the knowledge base's HTML documents): linear scans, no backtracking regex over a page. */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

const HIDDEN = ['script', 'style', 'noscript', 'template'];

/**
 * `html` without the contents of hidden elements and comments; one linear scan (no backtracking
 * regex over the page). Each search starts past the one before, and a `>` searched for and not
 * found is not searched for again, so no part of the page is scanned twice.
 */
export function withoutHidden(html: string): string {
  // ASCII letters only: a full toLowerCase can change the length (U+0130), and the positions found
  // in `lower` are used in `html`.
  const lower = html.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  let out = '';
  // The text from `kept` on is copied when a hidden part starts (or at the end), in one slice.
  let kept = 0;
  let at = 0;
  let noCloseAfter = Infinity;
  while (at < html.length) {
    const open = lower.indexOf('<', at);
    if (open < 0) break;
    const comment = lower.startsWith('<!--', open);
    const hidden = comment
      ? undefined
      : HIDDEN.find((name) => lower.startsWith(name, open + 1) && !/[a-z0-9-]/.test(lower[open + 1 + name.length] ?? ''));
    if (!comment && !hidden) {
      at = open + 1;
      continue;
    }
    out += `${html.slice(kept, open)} `;
    const close = comment ? '-->' : `</${hidden}`;
    const end = lower.indexOf(close, open + 1);
    if (end < 0) return out;
    if (comment) {
      at = kept = end + 3;
      continue;
    }
    const gt = end >= noCloseAfter ? -1 : lower.indexOf('>', end);
    if (gt < 0) noCloseAfter = Math.min(noCloseAfter, end);
    at = kept = gt < 0 ? end + 1 : gt + 1;
  }
  return out + html.slice(kept);
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
