import type { AppDeps } from '../core/deps.ts';
import type { NotificationTransport } from './message.ts';
import { outboxTransport } from './outbox-transport.ts';

export type { NotificationTransport, OutgoingMessage } from './message.ts';

/**
 * The transport of this app: the transactional outbox. The outbox worker
 * (delivery/outbox-worker.ts) sends what it records through SMTP and the SMS provider.
 */
export function transportFor(deps: AppDeps): NotificationTransport {
  return outboxTransport(deps);
}
