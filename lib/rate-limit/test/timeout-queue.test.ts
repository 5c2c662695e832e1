import test from 'ava';
import { StoreTimeoutError } from '../src/errors.ts';
import { TimeoutQueue } from '../src/timeout-queue.ts';

const never = new Promise<never>(() => {});

test('a call that settles in time keeps its value or error', async (t) => {
  const queue = new TimeoutQueue(50);
  t.is(await queue.run(Promise.resolve(7)), 7);
  await t.throwsAsync(queue.run(Promise.reject(new Error('boom'))), { message: 'boom' });
});

test('a call still pending after timeoutMs rejects with StoreTimeoutError, in deadline order', async (t) => {
  const queue = new TimeoutQueue(40);
  const order: number[] = [];
  const first = queue.run(never).catch((e: unknown) => (order.push(1), e));
  // The second call starts in a later turn of the event loop, so its deadline is the later one.
  await new Promise((resolve) => setImmediate(resolve));
  const second = queue.run(never).catch((e: unknown) => (order.push(2), e));
  const [a, b] = await Promise.all([first, second]);
  t.true(a instanceof StoreTimeoutError && b instanceof StoreTimeoutError);
  t.deepEqual(order, [1, 2]);
});

test('settled calls ahead of a pending one do not delay its timeout', async (t) => {
  const queue = new TimeoutQueue(30);
  await Promise.all(Array.from({ length: 2_000 }, (_, i) => queue.run(Promise.resolve(i))));
  await t.throwsAsync(queue.run(never), { instanceOf: StoreTimeoutError });
});

// ava fails a file on any unhandled rejection, so the late rejection below would surface if it escaped.
test('a late answer after the timeout is ignored, not reported as unhandled', async (t) => {
  const queue = new TimeoutQueue(10);
  let rejectLate: (e: Error) => void = () => {};
  const late = new Promise<never>((_, reject) => (rejectLate = reject));
  await t.throwsAsync(queue.run(late), { instanceOf: StoreTimeoutError });
  rejectLate(new Error('late'));
  await new Promise((resolve) => setImmediate(resolve));
  t.is(await queue.run(Promise.resolve(1)), 1);
});

test('timeoutMs 0 disables the timeout', async (t) => {
  const queue = new TimeoutQueue(0);
  const value = Promise.resolve('same');
  t.is(queue.run(value), value);
});
