import test from 'ava';
import { parseWindow } from '../src/parse-window.ts';

for (const [input, ms] of [
  ['500ms', 500],
  ['1ms', 1],
  ['30s', 30_000],
  ['1s', 1_000],
  ['5m', 300_000],
  ['15m', 900_000],
] as const) {
  test(`parseWindow reads ${JSON.stringify(input)} as ${ms} ms`, (t) => {
    t.is(parseWindow(input), ms);
  });
}

for (const input of ['', '500', '0ms', '0s', '0m', '-5s', '1.5s', '1h', '5 m', ' 5m', '5M', 'ms', '5mss', '1d', '+5s', '5e3ms']) {
  test(`parseWindow rejects ${JSON.stringify(input)} with a message naming it`, (t) => {
    t.throws(() => parseWindow(input), { instanceOf: TypeError, message: (m) => m.includes(JSON.stringify(input)) });
  });
}

for (const input of [500, null, undefined, {}]) {
  test(`parseWindow rejects the non-string ${String(input)} with a message naming it`, (t) => {
    t.throws(() => parseWindow(input), { instanceOf: TypeError, message: (m) => m.includes(String(input)) });
  });
}

test('parseWindow rejects a window too long to be exact in milliseconds', (t) => {
  t.throws(() => parseWindow('99999999999999999m'), { message: /99999999999999999m/ });
});
