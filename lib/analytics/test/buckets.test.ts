import test from 'ava';
import { bucketStarts, countBuckets } from '../src/index.ts';

const iso = (dates: Date[]): string[] => dates.map((d) => d.toISOString());
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Local "dd/mm, HH:MM" of an instant, from Intl (independent of the library's offset logic). */
const localParts = (d: Date, timeZone: string): string => {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    const options = { timeZone, hourCycle: 'h23', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' } as const;
    formatter = new Intl.DateTimeFormat('en-GB', options);
    formatters.set(timeZone, formatter);
  }
  return formatter.format(d);
};

test('the New York spring-forward day 2026-03-08 has 23 hourly buckets and no 02:00', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-03-08T05:00:00Z'), // local midnight EST
    to: new Date('2026-03-09T04:00:00Z'), // next local midnight EDT
    granularity: 'hour',
    timeZone: 'America/New_York',
  });
  t.is(starts.length, 23);
  t.deepEqual(iso(starts.slice(0, 3)), ['2026-03-08T05:00:00.000Z', '2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z']);
  const hours = starts.map((d) => localParts(d, 'America/New_York').slice(-5, -3));
  t.false(hours.includes('02'));
  t.is(hours[2], '03');
});

test('the New York fall-back day 2026-11-01 has 25 hourly buckets with 01:00 twice at 05:00Z and 06:00Z', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-11-01T04:00:00Z'), // local midnight EDT
    to: new Date('2026-11-02T05:00:00Z'), // next local midnight EST
    granularity: 'hour',
    timeZone: 'America/New_York',
  });
  t.is(starts.length, 25);
  const oneAm = starts.filter((d) => localParts(d, 'America/New_York').endsWith('01:00'));
  t.deepEqual(iso(oneAm), ['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z']);
  t.is(new Set(iso(starts)).size, 25);
});

test('Asia/Kolkata (+05:30) hourly buckets start at :30 UTC, beginning with the hour containing from', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-01-10T00:00:00Z'), // 05:30 local
    to: new Date('2026-01-10T03:00:00Z'),
    granularity: 'hour',
    timeZone: 'Asia/Kolkata',
  });
  t.deepEqual(iso(starts), [
    '2026-01-09T23:30:00.000Z',
    '2026-01-10T00:30:00.000Z',
    '2026-01-10T01:30:00.000Z',
    '2026-01-10T02:30:00.000Z',
  ]);
});

test('Asia/Kathmandu (+05:45) hourly buckets start at :15 UTC', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-01-10T00:00:00Z'),
    to: new Date('2026-01-10T02:00:00Z'),
    granularity: 'hour',
    timeZone: 'Asia/Kathmandu',
  });
  t.deepEqual(iso(starts), ['2026-01-09T23:15:00.000Z', '2026-01-10T00:15:00.000Z', '2026-01-10T01:15:00.000Z']);
});

test('Lord Howe 30-minute DST shifts give one 90-minute local hour without looping', (t) => {
  const fallBack = bucketStarts({
    from: new Date('2026-04-04T13:00:00Z'),
    to: new Date('2026-04-04T17:00:00Z'),
    granularity: 'hour',
    timeZone: 'Australia/Lord_Howe',
  });
  // 00:00 +11, 01:00 +11, then 01:30–02:00 repeats at +10:30, so 02:00 +10:30 is next.
  t.deepEqual(iso(fallBack), [
    '2026-04-04T13:00:00.000Z',
    '2026-04-04T14:00:00.000Z',
    '2026-04-04T15:30:00.000Z',
    '2026-04-04T16:30:00.000Z',
  ]);
  const springForward = bucketStarts({
    from: new Date('2026-10-03T14:30:00Z'),
    to: new Date('2026-10-03T17:00:00Z'),
    granularity: 'hour',
    timeZone: 'Australia/Lord_Howe',
  });
  // 01:00 +10:30, then 02:00–02:30 is skipped, so 03:00 +11 is next.
  t.deepEqual(iso(springForward), ['2026-10-03T14:30:00.000Z', '2026-10-03T16:00:00.000Z']);
});

test('hourly buckets over a whole year start on a local :00 and strictly increase in every zone tried', (t) => {
  for (const timeZone of ['America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns']) {
    const starts = bucketStarts({
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2027-01-01T00:00:00Z'),
      granularity: 'hour',
      timeZone,
    });
    let previous = -Infinity;
    for (const d of starts) {
      t.true(d.getTime() > previous);
      previous = d.getTime();
    }
    const offHour = starts.filter((d) => !localParts(d, timeZone).endsWith(':00'));
    t.deepEqual(offHour, [], timeZone);
  }
});

test('daily buckets across the Berlin spring-forward start at local midnights (23:00Z, then 22:00Z)', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-03-28T12:00:00Z'),
    to: new Date('2026-03-31T00:00:00Z'),
    granularity: 'day',
    timeZone: 'Europe/Berlin',
  });
  t.deepEqual(iso(starts), [
    '2026-03-27T23:00:00.000Z',
    '2026-03-28T23:00:00.000Z', // 29 March, a 23-hour day
    '2026-03-29T22:00:00.000Z',
    '2026-03-30T22:00:00.000Z', // 31 March local midnight is before `to`
  ]);
});

test('the New York fall-back day bucket lasts 25 hours', (t) => {
  const [day, next] = bucketStarts({
    from: new Date('2026-11-01T12:00:00Z'),
    to: new Date('2026-11-02T12:00:00Z'),
    granularity: 'day',
    timeZone: 'America/New_York',
  });
  t.is((next as Date).getTime() - (day as Date).getTime(), 25 * 3_600_000);
});

test('a day whose local midnight is skipped (Santiago) starts at its first instant, 01:00 local', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-09-05T12:00:00Z'),
    to: new Date('2026-09-07T12:00:00Z'),
    granularity: 'day',
    timeZone: 'America/Santiago',
  });
  t.deepEqual(iso(starts), ['2026-09-05T04:00:00.000Z', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
});

test('a weekly window starting on a Wednesday begins at the previous Monday 00:00 local', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-01-14T15:00:00Z'), // Wednesday
    to: new Date('2026-01-27T00:00:00Z'),
    granularity: 'week',
    timeZone: 'America/New_York',
  });
  t.deepEqual(iso(starts), ['2026-01-12T05:00:00.000Z', '2026-01-19T05:00:00.000Z', '2026-01-26T05:00:00.000Z']);
});

test('Berlin month buckets start on the local 1st at 00:00: 23:00Z in winter, 22:00Z in summer', (t) => {
  const starts = bucketStarts({
    from: new Date('2026-02-15T00:00:00Z'),
    to: new Date('2026-05-01T00:00:00Z'),
    granularity: 'month',
    timeZone: 'Europe/Berlin',
  });
  t.deepEqual(iso(starts), [
    '2026-01-31T23:00:00.000Z',
    '2026-02-28T23:00:00.000Z',
    '2026-03-31T22:00:00.000Z',
    '2026-04-30T22:00:00.000Z', // 1 May local starts before `to`
  ]);
});

test('buckets default to UTC when no time zone is given', (t) => {
  const starts = bucketStarts({ from: new Date('2026-06-01T10:00:00Z'), to: new Date('2026-06-03T00:00:00Z'), granularity: 'day' });
  t.deepEqual(iso(starts), ['2026-06-01T00:00:00.000Z', '2026-06-02T00:00:00.000Z']);
});

test('an empty or reversed window has no buckets', (t) => {
  const at = new Date('2026-06-01T10:30:00Z');
  t.deepEqual(bucketStarts({ from: at, to: at, granularity: 'hour' }), []);
  t.deepEqual(bucketStarts({ from: at, to: new Date(at.getTime() - 1), granularity: 'hour' }), []);
});

test('countBuckets matches bucketStarts and stops at max + 1 on huge windows', (t) => {
  const window = {
    from: new Date('2026-01-01T00:00:00Z'),
    to: new Date('2026-03-01T00:00:00Z'),
    granularity: 'day',
    timeZone: 'Europe/Berlin',
  } as const;
  t.is(countBuckets(window, 10_000), bucketStarts(window).length);
  const decadeOfHours = { from: new Date('2020-01-01T00:00:00Z'), to: new Date('2030-01-01T00:00:00Z'), granularity: 'hour' } as const;
  t.is(countBuckets(decadeOfHours, 10_000), 10_001);
  t.is(countBuckets(decadeOfHours, 0), 1);
});

test('bucket functions reject unknown zones, invalid dates and a bad max', (t) => {
  const from = new Date('2026-01-01T00:00:00Z');
  const to = new Date('2026-01-02T00:00:00Z');
  t.throws(() => bucketStarts({ from, to, granularity: 'day', timeZone: 'Mars/Olympus' }), { instanceOf: RangeError });
  t.throws(() => bucketStarts({ from: new Date('nope'), to, granularity: 'day' }), { instanceOf: RangeError });
  t.throws(() => countBuckets({ from, to, granularity: 'day' }, -1), { instanceOf: RangeError });
});
