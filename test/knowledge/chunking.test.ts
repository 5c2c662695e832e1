import test from 'ava';
import { chunkText, headingOf } from '../../app/knowledge/chunking.ts';
import { htmlAsMarkdown } from '../../app/knowledge/document-text.ts';
import { withoutHidden } from '../../app/core/html-text.ts';

test('a heading is 1-6 # and a space; its closing # go when a space precedes them', (t) => {
  t.deepEqual(headingOf('# Billing'), { level: 1, title: 'Billing' });
  t.deepEqual(headingOf('###\t Refunds  ##  '), { level: 3, title: 'Refunds' });
  t.deepEqual(headingOf('## Learning C#'), { level: 2, title: 'Learning C#' });
  t.deepEqual(headingOf('###### Six'), { level: 6, title: 'Six' });
  t.deepEqual(headingOf('# ###'), { level: 1, title: '' });
  t.is(headingOf('####### Seven'), undefined);
  t.is(headingOf('#NoSpace'), undefined);
  t.is(headingOf('#'), undefined);
  t.is(headingOf(' # indented'), undefined);
});

test('lines end at \\n, \\r\\n and a lone \\r; the heading path is kept', (t) => {
  t.deepEqual(chunkText('# Billing\r## Invoices\r\nMonthly.\rStill monthly.\n\n## Refunds\nIn 5 days.'), [
    { heading: 'Billing > Invoices', body: 'Monthly. Still monthly.' },
    { heading: 'Billing > Refunds', body: 'In 5 days.' },
  ]);
});

test("the review's heading line of # and spaces ending in \\r or U+2028 is read as a heading without a title", (t) => {
  const spaces = ' '.repeat(3_150);
  t.deepEqual(chunkText(`#${spaces}\r\n\nThe notes end here.`), [{ heading: '', body: 'The notes end here.' }]);
  t.deepEqual(chunkText(`# Notes${spaces}\u2028\n\nThe notes end here.`), [{ heading: 'Notes', body: 'The notes end here.' }]);
});

test('a heading path is at most 300 characters, however long the titles', (t) => {
  const chunks = chunkText(`# ${'a'.repeat(100_000)}\n###### ${'b'.repeat(100_000)}\n\nText.`);
  t.is(chunks[0]!.heading.length, 300);
  t.is(chunks[0]!.heading, 'a'.repeat(300));
});

test("the review's HTML heading of 40,000 # becomes one heading line, cut in the path", (t) => {
  const markdown = htmlAsMarkdown(`<h1>a${'#'.repeat(40_000)}b</h1><p>The page ends here.</p>`);
  t.is(markdown, `# a${'#'.repeat(40_000)}b\n\nThe page ends here.`);
  t.deepEqual(chunkText(markdown), [{ heading: `a${'#'.repeat(299)}`, body: 'The page ends here.' }]);
});

test('hidden elements go whatever their case, unclosed ones take the rest, text after non-ASCII letters stays in place', (t) => {
  t.is(withoutHidden('a<SCRIPT>x</Script >b<!-- c -->d<style>e'), 'a b d ');
  t.is(withoutHidden('İİ<script>x</script>after'), 'İİ after');
  // The close tag `</script` ends at the next `>`, the one of `<p>`.
  t.is(withoutHidden('<script</script<p>kept'), ' kept');
});
