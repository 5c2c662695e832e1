/** How the console names an end user of an agent's website chat (approvals, conversations, usage). */
export type EndUserRef = {
  id: string;
  externalId: string | null;
  verified: boolean;
  /** How they were vouched for; absent where the API does not say (usage rows): read from `verified`. */
  kind?: 'visitor' | 'verified' | 'client';
  name?: string | null;
  email?: string | null;
};

/**
 * Who vouched for the end user, and the part of an id that tells them apart: an anonymous visitor
 * and a client by the end of an id (its random bits: a UUID v7 starts with its creation time, the
 * same for end users who came within a minute), a verified user by the business's id of them.
 * Nothing the end user typed.
 */
export function endUserLabel(user: EndUserRef): string {
  const kind = user.kind ?? (user.verified ? 'verified' : 'visitor');
  if (kind === 'visitor') return `Anonymous visitor ${user.id.slice(-8)}`;
  if (kind === 'client') return `Client account ${(user.externalId ?? user.id).slice(-8)}`;
  return `Verified user ${JSON.stringify(user.externalId ?? '')}`;
}

/**
 * The name and email the end user gave, quoted (as JSON strings: a quote or control character
 * inside stays escaped) and said to be theirs; empty when they gave none.
 */
export function endUserGiven(user: EndUserRef): string {
  const given = [user.name, user.email].filter((value): value is string => typeof value === 'string' && value !== '');
  return given.length === 0 ? '' : `${given.map((value) => JSON.stringify(value)).join(', ')} (given by the end user)`;
}

/** `endUserLabel`, then what the end user gave when they gave anything. */
export const endUserText = (user: EndUserRef) => {
  const given = endUserGiven(user);
  return given === '' ? endUserLabel(user) : `${endUserLabel(user)}: ${given}`;
};

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
/** A timestamp of the API (ISO 8601) in the browser's zone. */
export const when = (iso: string) => dateTime.format(new Date(iso));
