/**
 * The `fetch` the model provider is called through. A provider is a remote peer like any other:
 * - `idleTimeoutMs` bounds the wait for the response and then for every next body chunk (a
 *   streamed answer may take long as a whole, but never stalls longer than this);
 * - `maxResponseBytes` bounds the bytes one response may send;
 * - every failure is recorded (`failures`) so the stream's error chunk can name the cause
 *   without quoting the provider's text, which could echo the key.
 */
export type ProviderFailure = 'timeout' | 'too_large' | 'unreachable';

export type ProviderFetch = {
  fetch: typeof fetch;
  failures: ProviderFailure[];
};

export function providerFetch(
  base: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
  limits: { idleTimeoutMs: number; maxResponseBytes: number },
): ProviderFetch {
  const failures: ProviderFailure[] = [];
  const wrapped = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        failures.push('timeout');
        idle.abort(new Error('the model provider did not answer in time'));
      }, limits.idleTimeoutMs);
    };
    arm();
    const signal = init.signal ? AbortSignal.any([init.signal, idle.signal]) : idle.signal;
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      if (!idle.signal.aborted && !init.signal?.aborted) failures.push('unreachable');
      throw error;
    }
    if (!response.body) {
      clearTimeout(timer);
      return response;
    }
    arm();
    let total = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > limits.maxResponseBytes) {
            clearTimeout(timer);
            failures.push('too_large');
            controller.error(new Error(`the model provider sent more than ${limits.maxResponseBytes} bytes`));
            idle.abort();
            return;
          }
          arm();
          controller.enqueue(chunk);
        },
        flush() {
          clearTimeout(timer);
        },
      }),
    );
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: wrapped as typeof fetch, failures };
}
