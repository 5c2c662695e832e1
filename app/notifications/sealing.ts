import { openJson, sealJson, type Keyring, type Sealed } from '../crypto/credentials.ts';

/** `fromName`: the From display name (an agency's product name, docs/billing.md "Branding"). */
export type MessageBody = { subject?: string; text: string; replyTo?: string; fromName?: string };

/** Binds a sealed body to its outbox row: a ciphertext copied to another row does not open. */
const contextOf = (messageId: string) => `notification-outbox:${messageId}`;

/** Outbox bodies may carry a verification code: sealed with the service keyring (AES-256-GCM). */
export const sealMessageBody = (keyring: Keyring, messageId: string, body: MessageBody): Sealed =>
  sealJson(keyring, body, contextOf(messageId));

/** What a delivery worker does before sending. Throws if the row was tampered with. */
export const openMessageBody = (keyring: Keyring, messageId: string, sealed: Sealed): MessageBody =>
  openJson<MessageBody>(keyring, sealed, contextOf(messageId));
