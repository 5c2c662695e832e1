/**
 * Why a chat turn failed, in words: the transport's error carries the service's answer as text
 * (the JSON error envelope before a stream, or a stream's `error` chunk text), so the coded
 * refusals (budget used up, model not available, conversation full) show their own message.
 */
export function chatFailure(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { errorCode?: unknown; message?: unknown };
    const message = typeof body.message === 'string' ? body.message : (body.message as { en?: unknown } | undefined)?.en;
    if (typeof message === 'string') return `The chat was refused: ${message}`;
  } catch {
    // Not an error envelope: the stream's own error text.
  }
  return `The answer failed: ${error.message}`;
}
