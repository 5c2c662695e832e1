/**
 * What a page module of the console is given and exports. Its own file, below both: the router
 * loads the pages and every page names these types, so neither imports the other.
 */
export type PageContext = {
  /** The element the page renders into (emptied before each visit). */
  root: HTMLElement;
  /** The route's captured parts (an agent id, a conversation id). */
  params: string[];
  /** Aborted when the user leaves the page. */
  signal: AbortSignal;
};
export type PageModule = { render(context: PageContext): Promise<void> | void };
