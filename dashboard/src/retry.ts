import type { ApiError } from './api.ts';

/** "Try again in 42 seconds." from a 429's `Retry-After`, or a vaguer sentence without one. */
export const retryText = (error: ApiError) =>
  error.retryAfterSeconds ? `Try again in ${Math.ceil(error.retryAfterSeconds)} seconds.` : 'Try again in a moment.';
