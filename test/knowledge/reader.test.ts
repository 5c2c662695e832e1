import test from 'ava';
import { DocumentProblem } from '../../app/knowledge/document-problem.ts';
import { inflationProblem } from '../../app/knowledge/pdf-streams.ts';
import { readDocument } from '../../app/knowledge/reader.ts';
import { DocumentReaders, ReadersBusy } from '../../app/knowledge/readers.ts';
import { deflatedZeros, flateBombPdf, legitimatePdf, pdfOf } from '../../fuzz/document-bombs.ts';
import { textPdf } from './pdf-fixtures.ts';

const MIB = 1024 * 1024;
const LIMITS = { timeoutMs: 15_000, memoryMb: 512 };

test('a PDF is read page by page in a process of its own, each page a section', async (t) => {
  const chunks = await readDocument('application/pdf', textPdf([['First page'], ['Second page', 'has two lines']]), LIMITS);
  t.deepEqual(chunks, [{ heading: '', body: 'First page\n\nSecond page has two lines' }]);
});

test('a legitimate PDF with compressed pages and images is read', async (t) => {
  const chunks = await readDocument('application/pdf', legitimatePdf(400_000, 20), LIMITS);
  t.true(chunks.length > 1);
  t.regex(chunks[0]!.body, /^[a-z]+ [a-z]+/);
});

test('a reading that takes longer than the bound is stopped, and the next one is read', async (t) => {
  // 1 ms is less than starting the process takes: it is killed before it answers.
  const error = await t.throwsAsync(readDocument('application/pdf', textPdf([['slow']]), { ...LIMITS, timeoutMs: 1 }), {
    instanceOf: DocumentProblem,
  });
  t.is(error?.message, 'the file took longer than 1 ms to read');
  t.deepEqual(await readDocument('text/plain', Buffer.from('after'), LIMITS), [{ heading: '', body: 'after' }]);
});

test("the review's PDF, one page of 1 GiB of zeros under FlateDecode, is refused as a decompression bomb", async (t) => {
  const bomb = flateBombPdf();
  t.true(bomb.length < 1.1 * MIB);
  const error = await t.throwsAsync(readDocument('application/pdf', bomb, LIMITS), { instanceOf: DocumentProblem });
  t.is(error?.message, 'the PDF holds a compressed stream that inflates to more than 64 MiB (a decompression bomb)');
});

test('a bomb the stream check cannot see is stopped by the memory bound of its process', async (t) => {
  // ASCIIHexDecode before FlateDecode: only PDF.js inflates it, into ArrayBuffers outside the V8 heap.
  const error = await t.throwsAsync(
    readDocument('application/pdf', flateBombPdf(1024 * MIB, { hidden: true }), { ...LIMITS, memoryMb: 256 }),
    {
      instanceOf: DocumentProblem,
    },
  );
  t.is(error?.message, 'reading the file needs more than 256 MiB of memory');
});

test('the stream check counts every stream but images, up to a bound per stream and in all', (t) => {
  const flate = (data: Buffer, extra = '') => [
    Buffer.from(`<< /Filter /FlateDecode${extra} /Length ${data.length} >>\nstream\n`),
    data,
    Buffer.from('\nendstream'),
  ];
  const limits = { stream: 8 * MIB, total: 16 * MIB };
  const sixes = pdfOf(['<< /Type /Catalog >>', flate(deflatedZeros(6 * MIB)), flate(deflatedZeros(6 * MIB))]);
  t.is(inflationProblem(sixes, limits), undefined);
  const threeSixes = pdfOf(['<< /Type /Catalog >>', ...Array.from({ length: 3 }, () => flate(deflatedZeros(6 * MIB)))]);
  t.is(inflationProblem(threeSixes, limits), "the PDF's compressed streams inflate to more than 16 MiB together (a decompression bomb)");
  const image = pdfOf(['<< /Type /Catalog >>', flate(deflatedZeros(32 * MIB), ' /Type /XObject /Subtype /Image')]);
  t.is(inflationProblem(image, limits), undefined);
  const one = pdfOf(['<< /Type /Catalog >>', flate(deflatedZeros(9 * MIB))]);
  t.is(inflationProblem(one, limits), 'the PDF holds a compressed stream that inflates to more than 8 MiB (a decompression bomb)');
});

test('readers run at most their number at once, queue up to their bound, and refuse the next', async (t) => {
  const readers = new DocumentReaders(1, 1);
  const order: string[] = [];
  let release!: () => void;
  const first = readers.run(() => new Promise<void>((resolve) => (release = resolve)).then(() => order.push('first')));
  const second = readers.run(async () => order.push('second'));
  t.is(readers.active, 1);
  t.is(readers.waiting, 1);
  await t.throwsAsync(
    readers.run(async () => order.push('third')),
    { instanceOf: ReadersBusy },
  );
  release();
  await Promise.all([first, second]);
  t.deepEqual(order, ['first', 'second']);
  t.is(readers.active, 0);
});
