import { StoreTimeoutError } from './errors.ts';

/**
 * Settles with `promise`, or rejects with {@link StoreTimeoutError} after `timeoutMs`.
 * The losing promise keeps a handler attached, so a late rejection is never unhandled.
 * `timeoutMs` <= 0 or non-finite disables the timeout.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
