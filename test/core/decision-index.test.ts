import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';

const DIR = new URL('../../docs/decisions/', import.meta.url);
const records = readdirSync(DIR)
  .filter((name) => /^\d{4}-.+\.md$/.test(name))
  .sort();
const index = readFileSync(new URL('README.md', DIR), 'utf8');
/** `| [0001](0001-x.md) | title | status |` rows of the index. */
const rows = [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+?) \| (.+?) \|$/gm)].map(([, number, file, title, status]) => ({
  number: number!,
  file: file!,
  title: title!,
  status: status!,
}));

test('the decision index lists every decision record once, under its own number and title', (t) => {
  t.deepEqual(
    rows.map((row) => row.file).sort(),
    records,
    'docs/decisions/README.md must have one row per record file (and no row without a file)',
  );
  for (const row of rows) {
    const heading = readFileSync(new URL(row.file, DIR), 'utf8').split('\n')[0]!;
    t.true(row.file.startsWith(`${row.number}-`), `${row.file} is listed as ${row.number}`);
    t.regex(heading, new RegExp(`^# ${row.number}\\.? `), `${row.file} starts with its number`);
    t.true(heading.endsWith(row.title), `the index title of ${row.number} is the record's heading`);
  }
});

test('a record whose file says it is superseded is not listed as accepted', (t) => {
  for (const row of rows) {
    const status = /^Status: (.+)$/m.exec(readFileSync(new URL(row.file, DIR), 'utf8'))?.[1] ?? 'accepted';
    if (/superseded/i.test(status)) t.regex(row.status, /superseded/, `${row.number}: ${status}`);
    else t.is(row.status, status, `${row.number} is listed with the status its file states`);
  }
});
