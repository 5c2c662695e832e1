import { EventEmitter } from 'node:events';
import { createPgDriverFactory } from '@slonik/pg-driver';
import type { DriverClient, DriverFactory } from 'slonik';

/**
 * Slonik's pg driver with one defect of @slonik/driver 47 worked around: a client destroyed
 * while a query is in flight, when that query then fails (its backend was terminated), never
 * finishes destroying: `internalDestroy` awaits the failed query without a catch, so the client
 * stays PENDING_DESTROY, never emits `destroy`, and keeps its pool slot for good. A few
 * terminated backends under load fill the pool with such clients and every request then waits
 * (measured with `npm run bench:faults`). @slonik/driver 49 catches that failure ("pending driver
 * operation failed while destroying client"); until the project moves to it, this wrapper
 * finishes such a destroy itself: the client reports DESTROYED and emits `destroy`, and the pool
 * frees the slot. Its socket is already closed by the server.
 */
export function pgDriverFactory(): DriverFactory {
  const inner = createPgDriverFactory();
  return async (options) => {
    const driver = await inner(options);
    return { createClient: async () => finishingDestroy(await driver.createClient()) };
  };
}

function finishingDestroy(client: DriverClient): DriverClient {
  // Listeners of `destroy`, called by this wrapper when the driver's own destroy failed.
  const destroyListeners = new EventEmitter();
  let destroyFailed = false;
  let destroying: Promise<void> | undefined;
  const destroy = (): Promise<void> =>
    (destroying ??= client.destroy().catch(() => {
      destroyFailed = true;
      destroyListeners.emit('destroy');
    }));
  // The driver destroys a client on its own `error` event, bypassing this wrapper; its destroy
  // promise is shared, so following it here catches that failure too.
  client.on('error', () => void destroy());
  return {
    ...client,
    destroy,
    state: () => (destroyFailed ? 'DESTROYED' : client.state()),
    on: ((event: string, listener: () => void) => {
      if (event === 'destroy') destroyListeners.on('destroy', listener);
      return client.on(event as 'destroy', listener);
    }) as DriverClient['on'],
    off: ((event: string, listener: () => void) => {
      if (event === 'destroy') destroyListeners.off('destroy', listener);
      return client.off(event as 'destroy', listener);
    }) as DriverClient['off'],
    removeListener: ((event: string, listener: () => void) => {
      if (event === 'destroy') destroyListeners.removeListener('destroy', listener);
      return client.removeListener(event as 'destroy', listener);
    }) as DriverClient['removeListener'],
  };
}
