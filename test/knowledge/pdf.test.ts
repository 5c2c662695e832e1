import test from 'ava';
import { pdfPages, PdfError } from '../../app/knowledge/pdf-text.ts';
import { textPdf } from './pdf-fixtures.ts';

test('a PDF is read page by page in a worker thread', async (t) => {
  t.deepEqual(await pdfPages(textPdf([['First page'], ['Second page', 'has two lines']])), ['First page', 'Second page\nhas two lines']);
});

test('a PDF that takes longer than the bound is stopped with a timeout, and the next one is read', async (t) => {
  // 1 ms is less than starting the thread takes: the parse is stopped before it answers.
  const error = await t.throwsAsync(pdfPages(textPdf([['slow']]), 1), { instanceOf: PdfError });
  t.is(error?.reason, 'timeout');
  t.regex(error!.message, /took longer than 1 ms/);
  t.deepEqual(await pdfPages(textPdf([['after']])), ['after']);
});
