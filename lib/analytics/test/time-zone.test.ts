import test from 'ava';
import { isValidTimeZone, localDayOfWeekAndHour } from '../src/index.ts';

test('isValidTimeZone accepts UTC and IANA names', (t) => {
  for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']) t.true(isValidTimeZone(zone), zone);
});

test('isValidTimeZone rejects empty strings, garbage and non-strings', (t) => {
  for (const zone of ['', '   ', 'garbage', 'Mars/Olympus', 'Europe/Berlin; DROP TABLE', 42, null, undefined]) {
    t.false(isValidTimeZone(zone), String(zone));
  }
});

test('localDayOfWeekAndHour skips 02:00 on the New York spring-forward Sunday', (t) => {
  t.deepEqual(localDayOfWeekAndHour(new Date('2026-03-08T06:59:59Z'), 'America/New_York'), { dayOfWeek: 0, hour: 1 });
  t.deepEqual(localDayOfWeekAndHour(new Date('2026-03-08T07:00:00Z'), 'America/New_York'), { dayOfWeek: 0, hour: 3 });
});

test('localDayOfWeekAndHour maps both New York fall-back 01:00 hours to hour 1', (t) => {
  t.deepEqual(localDayOfWeekAndHour(Date.parse('2026-11-01T05:30:00Z'), 'America/New_York'), { dayOfWeek: 0, hour: 1 });
  t.deepEqual(localDayOfWeekAndHour(Date.parse('2026-11-01T06:30:00Z'), 'America/New_York'), { dayOfWeek: 0, hour: 1 });
});

test('localDayOfWeekAndHour moves a late-Saturday UTC instant to Sunday in Kolkata', (t) => {
  t.deepEqual(localDayOfWeekAndHour(new Date('2026-01-10T20:00:00Z'), 'UTC'), { dayOfWeek: 6, hour: 20 });
  t.deepEqual(localDayOfWeekAndHour(new Date('2026-01-10T20:00:00Z'), 'Asia/Kolkata'), { dayOfWeek: 0, hour: 1 });
});

test('localDayOfWeekAndHour rejects an unknown zone and an invalid instant', (t) => {
  t.throws(() => localDayOfWeekAndHour(0, 'Nowhere/City'), { instanceOf: RangeError });
  t.throws(() => localDayOfWeekAndHour(new Date('x'), 'UTC'), { instanceOf: RangeError });
});
