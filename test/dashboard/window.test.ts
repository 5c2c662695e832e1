import test from 'ava';
import { projectionEnd, reportWindow, type WindowSettings } from '../../dashboard/src/window.ts';
import { currentZoneName } from '../../dashboard/src/zones.ts';

const settings = (overrides: Partial<WindowSettings>): WindowSettings => ({
  range: '30d',
  customFrom: '',
  customTo: '',
  timeZone: 'UTC',
  ...overrides,
});

const iso = (window: ReturnType<typeof reportWindow>) =>
  typeof window === 'string' ? window : { from: window.from.toISOString(), to: window.to.toISOString() };

test('a rolling window ends at the next local hour, in zones whose hours are not UTC hours', (t) => {
  const now = new Date('2026-11-23T11:20:00.000Z'); // 17:05 in Kathmandu (UTC+05:45)
  t.deepEqual(iso(reportWindow(settings({ range: '7d', timeZone: 'Asia/Kathmandu' }), now)), {
    from: '2026-11-16T12:15:00.000Z',
    to: '2026-11-23T12:15:00.000Z',
  });
});

test('month to date starts at the local first of the month', (t) => {
  const now = new Date('2026-11-01T02:30:00.000Z'); // still 31 October in New York
  t.deepEqual(iso(reportWindow(settings({ range: 'mtd', timeZone: 'America/New_York' }), now)), {
    from: '2026-10-01T04:00:00.000Z',
    to: '2026-11-01T03:00:00.000Z',
  });
});

test('a custom window runs from the first day’s local midnight to the midnight after the last, across a DST change', (t) => {
  // New York leaves daylight saving time on 1 November 2026: the three days have 73 hours.
  const window = reportWindow(
    settings({ range: 'custom', customFrom: '2026-10-31', customTo: '2026-11-02', timeZone: 'America/New_York' }),
    new Date(),
  );
  t.deepEqual(iso(window), { from: '2026-10-31T04:00:00.000Z', to: '2026-11-03T05:00:00.000Z' });
});

test('an incomplete or reversed custom window is a message, not a request', (t) => {
  t.is(
    reportWindow(settings({ range: 'custom', customFrom: '2026-11-02' }), new Date()),
    'Choose the first and the last day of the custom window.',
  );
  t.is(
    reportWindow(settings({ range: 'custom', customFrom: '2026-11-02', customTo: '2026-11-01' }), new Date()),
    'The last day of the window must not be before the first.',
  );
});

test('the projection ends with the UTC month of the window’s last instant', (t) => {
  t.is(
    projectionEnd({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-23T12:00:00Z') }).toISOString(),
    '2026-12-01T00:00:00.000Z',
  );
  t.is(
    projectionEnd({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') }).toISOString(),
    '2026-12-01T00:00:00.000Z',
  );
});

test('old zone names that browsers list are shown by their current IANA names', (t) => {
  t.is(currentZoneName('Asia/Katmandu'), 'Asia/Kathmandu');
  t.is(currentZoneName('Europe/Kiev'), 'Europe/Kyiv');
  t.is(currentZoneName('Europe/Berlin'), 'Europe/Berlin');
});
