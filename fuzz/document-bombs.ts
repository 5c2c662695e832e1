/**
 * Hostile documents of the security review (issue 47), shared by the fuzzer's attack case, the
 * tests and bench:abuse: text that made the old heading pattern backtrack cubically, HTML that made
 * it quadratic, and PDFs whose FlateDecode stream inflates to 1 GiB. Also a legitimate PDF of a
 * chosen size (text pages with compressed content streams, and images) as their peer.
 */
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

/** One upload: a file's name, its media type and its bytes. */
export type DocumentUpload = { name: string; label: string; type: string; body: Buffer };

const MIB = 1024 * 1024;

/**
 * zlib data inflating to `bytes` zeros (a multiple of 1 MiB), built in milliseconds: one MiB of
 * zeros deflated with a full flush (byte-aligned, dictionary reset) is repeated, then the final
 * block and the Adler-32 of the zeros. About 1 KB per MiB: 1 GiB in about 1 MB.
 */
export function deflatedZeros(bytes: number): Buffer {
  const segment = deflateRawSync(Buffer.alloc(MIB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const adler = Buffer.alloc(4);
  // Adler-32 of n zeros: a = 1, b = n mod 65521.
  adler.writeUInt32BE((((bytes % 65_521) << 16) | 1) >>> 0);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array.from({ length: bytes / MIB }, () => segment),
    Buffer.from([0x03, 0x00]),
    adler,
  ]);
}

/** A PDF of these objects (numbered from 1, the first the catalog), with its cross-reference table. */
export function pdfOf(objects: Array<string | Buffer[]>): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const body = typeof object === 'string' ? [Buffer.from(object, 'latin1')] : object;
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), ...body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(part);
    length += part.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}

const stream = (dictionary: string, data: Buffer): Buffer[] => [
  Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
  data,
  Buffer.from('\nendstream', 'latin1'),
];

/**
 * The review's PDF: one page whose content stream is `inflatedBytes` of zeros under FlateDecode
 * (about 1.04 MB for 1 GiB). With `hidden`, an ASCIIHexDecode before the FlateDecode keeps the
 * zlib data from being seen as such before PDF.js decodes it.
 */
export function flateBombPdf(inflatedBytes = 1024 * MIB, options: { hidden?: boolean } = {}): Buffer {
  const zlib = deflatedZeros(inflatedBytes);
  const content = options.hidden
    ? stream('/Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from(`${zlib.toString('hex')}>`, 'latin1'))
    : stream('/Filter /FlateDecode', zlib);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>',
    content,
  ]);
}

const WORDS = (
  'refund parcel invoice warehouse account password shipping customer support order return label ' +
  'billing address delivery tracking carrier payment receipt warranty device battery screen repair ' +
  'policy window business days exchange store credit subscription renewal plan upgrade downgrade'
).split(' ');

/**
 * A legitimate PDF of about `bytes`: pages of sentences (their content streams under FlateDecode,
 * 40 lines a page) and, for the rest of the size, images of random bytes that text extraction
 * never decodes. Seeded, so the same size gives the same file.
 */
export function legitimatePdf(bytes: number, pages = 200): Buffer {
  let seed = 47;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const objects: Array<string | Buffer[]> = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const font = 3;
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const images: number[] = [];
  const imageCount = 4;
  const textBytes = pages * 1_100;
  const imageSide = Math.max(16, Math.floor(Math.sqrt(Math.max(0, bytes - textBytes) / imageCount / 3)));
  for (let i = 0; i < imageCount; i++) {
    const pixels = Buffer.alloc(imageSide * imageSide * 3);
    for (let p = 0; p < pixels.length; p++) pixels[p] = Math.floor(random() * 256);
    images.push(objects.length + 1);
    objects.push(
      stream(
        `/Type /XObject /Subtype /Image /Width ${imageSide} /Height ${imageSide} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`,
        deflateSync(pixels, { level: 1 }),
      ),
    );
  }
  const kids: string[] = [];
  for (let page = 0; page < pages; page++) {
    const lines = Array.from({ length: 40 }, () => Array.from({ length: 9 }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' '));
    const content = `BT /F1 10 Tf 12 TL 72 760 Td ${lines.map((line) => `(${line}.) '`).join(' ')} ET q 200 0 0 200 72 72 cm /Im Do Q`;
    const pageId = objects.length + 1;
    kids.push(`${pageId} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageId + 1} 0 R ` +
        `/Resources << /Font << /F1 ${font} 0 R >> /XObject << /Im ${images[page % imageCount]} 0 R >> >> >>`,
    );
    objects.push(stream('/Filter /FlateDecode', deflateSync(Buffer.from(content, 'latin1'))));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  return pdfOf(objects);
}

/** One line of the review's Markdown: `#`, spaces, and a lone `\r` (or U+2028) the old pattern could not end on. */
const headingLine = (bytes: number, end: string) => `#${' '.repeat(bytes - 1 - Buffer.byteLength(end))}${end}`;

/** `bytes` of such lines, then a sentence, so the document has text. */
function headingLines(bytes: number, lineBytes: number, end: string): string {
  const tail = '\n\nThe notes end here.\n';
  const line = headingLine(lineBytes, end);
  return line.repeat(Math.max(1, Math.floor((bytes - tail.length) / lineBytes))) + tail;
}

/** The JSON upload `{ name, text }` of `bytes` in all, its text one such line (the review's 3,200-byte document). */
function reviewJson(bytes: number, end: string, name: string): Buffer {
  const json = (spaces: number) => Buffer.from(JSON.stringify({ name, text: `#${' '.repeat(spaces)}${end}\n\nThe notes end here.` }));
  return json(Math.max(1, bytes - json(0).length));
}

/** The body and content type of an upload: JSON as it is, anything else as the multipart field `file`. */
export function uploadBody(upload: DocumentUpload): { contentType: string; body: Buffer } {
  if (upload.type === 'application/json') return { contentType: 'application/json', body: upload.body };
  const boundary = 'document-bomb-boundary-47';
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${upload.name}"\r\ncontent-type: ${upload.type}\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(head), upload.body, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

/**
 * The review's inputs and their 1 MiB variants, as uploads: text that made the old heading
 * pattern backtrack cubically (a 3,200-byte JSON document held the event loop 19 s), and HTML that
 * made it quadratic (`<h1>a` + 40,000 `#` + `b</h1>`: 2.25 s). Each must answer 201 or a 400.
 */
export function hostileDocuments(): DocumentUpload[] {
  const megabyte = MIB;
  const htmlHeading = (hashes: number) => Buffer.from(`<h1>a${'#'.repeat(hashes)}b</h1><p>The page ends here.</p>`);
  return [
    {
      label: 'review: 3,200-byte JSON, # and spaces ending in \\r',
      name: 'notes.md',
      type: 'application/json',
      body: reviewJson(3_200, '\r', 'notes.md'),
    },
    {
      label: 'review: 3,200-byte JSON, # and spaces ending in U+2028',
      name: 'notes.md',
      type: 'application/json',
      body: reviewJson(3_200, '\u2028', 'notes.md'),
    },
    { label: 'review: HTML <h1>a + 40,000 # + b</h1>', name: 'heading.html', type: 'text/html', body: htmlHeading(40_000) },
    {
      label: '1 MiB Markdown of 3,200-byte \\r lines',
      name: 'lines.md',
      type: 'text/markdown',
      body: Buffer.from(headingLines(megabyte, 3_200, '\r')),
    },
    {
      label: '1 MiB text of 3,200-byte U+2028 lines',
      name: 'lines.txt',
      type: 'text/plain',
      body: Buffer.from(headingLines(megabyte, 3_200, '\u2028')),
    },
    {
      label: '1 MiB Markdown, one line of # and spaces',
      name: 'line.md',
      type: 'text/markdown',
      body: Buffer.from(headingLines(megabyte, megabyte - 64, '\r')),
    },
    { label: '1 MiB HTML <h1> of #', name: 'heading-1mib.html', type: 'text/html', body: htmlHeading(megabyte - 64) },
    {
      label: '1 MiB HTML of unclosed </script',
      name: 'scripts.html',
      type: 'text/html',
      body: Buffer.from(`<p>Before.</p>${'<script</script'.repeat(Math.floor(megabyte / 15))}`),
    },
  ];
}
