import test from 'ava';
import { Sweeper } from '../../app/core/sweeper.ts';

test('a tick that comes while a sweep still runs is skipped: one sweep at a time', async (t) => {
  let sweeps = 0;
  let release!: () => void;
  const sweeper = new Sweeper(
    () => {
      sweeps += 1;
      return new Promise<void>((resolve) => (release = resolve));
    },
    () => {},
    60_000,
  );
  const first = sweeper.tick();
  const second = sweeper.tick();
  t.is(sweeps, 1);
  release();
  await Promise.all([first, second]);
  const third = sweeper.tick();
  t.is(sweeps, 2);
  release();
  await third;
});

test('a failed sweep is reported and the next tick sweeps again', async (t) => {
  const failures: unknown[] = [];
  let sweeps = 0;
  const sweeper = new Sweeper(
    async () => {
      sweeps += 1;
      throw new Error('database away');
    },
    (error) => failures.push(error),
    60_000,
  );
  await sweeper.tick();
  await sweeper.tick();
  t.is(sweeps, 2);
  t.is(failures.length, 2);
});

test('stop waits for the sweep under way', async (t) => {
  let done = false;
  let release!: () => void;
  const sweeper = new Sweeper(
    () =>
      new Promise<void>((resolve) => (release = resolve)).then(() => {
        done = true;
      }),
    () => {},
    60_000,
  );
  sweeper.start();
  void sweeper.tick();
  const stopped = sweeper.stop();
  release();
  await stopped;
  t.true(done);
});
