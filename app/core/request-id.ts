import type { Context, Next } from 'koa';
import { uuidv7 } from 'uuidv7';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed `x-request-id` from the caller or makes one, and echoes it on the response. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const incoming = ctx.get('x-request-id');
  const id = ACCEPTED.test(incoming) ? incoming : uuidv7();
  ctx.state.requestId = id;
  ctx.set('x-request-id', id);
  await next();
}
