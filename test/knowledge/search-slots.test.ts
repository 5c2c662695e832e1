import test from 'ava';
import { SearchSlots, SearchSlotsFull } from '../../app/knowledge/search-slots.ts';

/** Whether `promise` has settled after the microtasks queued so far have run. */
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test("an organization runs at most `running` searches at once; the next wait in order, another organization's do not", async (t) => {
  const slots = new SearchSlots(2, 10);
  const first = await slots.acquire('org-a');
  const second = await slots.acquire('org-a');
  const third = slots.acquire('org-a');
  const fourth = slots.acquire('org-a');
  t.false(await settled(third));
  // Another organization is not held up by org-a's searches.
  const other = await slots.acquire('org-b');
  first();
  t.true(await settled(third));
  t.false(await settled(fourth));
  // A release counts once, however often it is called.
  first();
  t.false(await settled(fourth));
  second();
  t.true(await settled(fourth));
  (await third)();
  (await fourth)();
  other();
  t.is(slots.busyKeys, 0);
});

test('past the waiting searches, one more is refused at once', async (t) => {
  const slots = new SearchSlots(1, 1);
  const running = await slots.acquire('org');
  const waiting = slots.acquire('org');
  const refused = await t.throwsAsync(slots.acquire('org'), { instanceOf: SearchSlotsFull });
  t.is(refused.message, "The knowledge base is busy with this organization's other searches. Try again in a moment.");
  running();
  (await waiting)();
  t.is(slots.busyKeys, 0);
});

test('a search whose turn is stopped while it waits leaves the queue', async (t) => {
  const slots = new SearchSlots(1, 1);
  const running = await slots.acquire('org');
  const stop = new AbortController();
  const waiting = slots.acquire('org', stop.signal);
  stop.abort(new Error('stopped'));
  await t.throwsAsync(waiting, { message: 'stopped' });
  // Its place is free again, and the slot goes to the next search.
  const next = slots.acquire('org');
  running();
  (await next)();
  t.is(slots.busyKeys, 0);
  await t.throwsAsync(slots.acquire('org', stop.signal), { message: 'stopped' });
});
