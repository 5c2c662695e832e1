/**
 * Small PDFs written byte by byte (no PDF library): a readable one with a page per text, an
 * encrypted one (a Standard security handler whose empty user password does not open it), and
 * a truncated one.
 */
function pdf(objects: string[], trailerExtra = ''): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const escape = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);

/** A PDF with one page per entry of `pages`, each line of a page drawn on its own line. */
export function textPdf(pages: string[][]): Buffer {
  const pageCount = pages.length;
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const kids: string[] = [];
  const font = 3 + pageCount * 2;
  pages.forEach((lines, index) => {
    const pageId = 3 + index * 2;
    kids.push(`${pageId} 0 R`);
    const content = `BT /F1 11 Tf 14 TL 72 720 Td ${lines.map((line) => `(${escape(line)}) '`).join(' ')} ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageId + 1} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    );
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pageCount} >>`;
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  return pdf(objects);
}

/** A PDF encrypted with the Standard handler (RC4, revision 2) under a user password the reader does not have. */
export function encryptedPdf(): Buffer {
  const hex32 = (seed: string) => Buffer.from(seed.repeat(32).slice(0, 32), 'latin1').toString('hex');
  return pdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Filter /Standard /V 1 /R 2 /O <${hex32('o')}> /U <${hex32('u')}> /P -4 >>`,
    ],
    `/Encrypt 4 0 R /ID [<${hex32('i').slice(0, 32)}> <${hex32('i').slice(0, 32)}>] `,
  );
}

/** The first bytes of a PDF and nothing after: no cross-reference table, no objects. */
export const truncatedPdf = () => Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pa', 'latin1');
