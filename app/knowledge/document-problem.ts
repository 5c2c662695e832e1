/** A file the knowledge base cannot take; the message names the problem (a 400 `AI.DOCUMENT_INVALID`). */
export class DocumentProblem extends Error {
  override name = 'DocumentProblem';
}
