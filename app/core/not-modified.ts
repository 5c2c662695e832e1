/**
 * A handler's answer to a conditional GET whose validator still matches: 304 with no body
 * (the handler has set the validator headers). See app/mcp-catalog/logo-routes.ts.
 */
export class NotModified {}

/** Whether `If-None-Match` (a list of entity tags, or `*`) matches `etag` by weak comparison (RFC 9110 §13.1.2). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}
