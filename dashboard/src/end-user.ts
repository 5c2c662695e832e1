/** How the console names an end user of an agent's website chat (approvals, conversations, usage). */
export type EndUserRef = { id: string; externalId: string | null; verified: boolean; name?: string | null };

/**
 * A verified user by name and the business's id; an anonymous visitor as such, with the end of
 * the service's id of the end user so two visitors stay apart (its random bits: a UUID v7 starts
 * with its creation time, the same for visitors who came within a minute).
 */
export function endUserLabel(user: EndUserRef): string {
  if (user.verified) return user.name ? `${user.name} (${user.externalId ?? 'verified'})` : `User ${user.externalId ?? '(verified)'}`;
  return `Anonymous visitor ${user.id.slice(-8)}`;
}

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
/** A timestamp of the API (ISO 8601) in the browser's zone. */
export const when = (iso: string) => dateTime.format(new Date(iso));
