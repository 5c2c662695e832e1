import test from 'ava';
import { ToolsCache, type DiscoveredTool, type ToolListing } from '../../app/mcp-client/tool-discovery.ts';

const listing = (bytes: number): ToolListing => ({ tools: [{ name: `t${bytes}` } as DiscoveredTool], bytes });

test('the tools cache keeps at most its byte budget, evicting the oldest listings first', (t) => {
  const cache = new ToolsCache(1_000, 100);
  cache.set('a', listing(400), 10);
  cache.set('b', listing(400), 10);
  t.is(cache.bytes, 800);
  cache.set('c', listing(400), 10);
  t.is(cache.get('a', 0), undefined);
  t.deepEqual([cache.get('b', 0)?.bytes, cache.get('c', 0)?.bytes], [400, 400]);
  t.is(cache.bytes, 800);
  // Storing again makes an entry the newest, and is counted once.
  cache.set('b', listing(300), 10);
  cache.set('d', listing(500), 10);
  t.is(cache.get('c', 0), undefined);
  t.deepEqual([cache.get('b', 0)?.bytes, cache.get('d', 0)?.bytes, cache.bytes, cache.size], [300, 500, 800, 2]);
});

test('a listing larger than the whole budget is not kept, and does not evict the others', (t) => {
  const cache = new ToolsCache(1_000, 100);
  cache.set('a', listing(600), 10);
  cache.set('huge', listing(1_001), 10);
  t.is(cache.get('huge', 0), undefined);
  t.is(cache.get('a', 0)?.bytes, 600);
  t.is(cache.bytes, 600);
});

test('the entry bound still holds, and an expired entry is answered as missing and frees its bytes', (t) => {
  const cache = new ToolsCache(1_000_000, 2);
  for (const key of ['a', 'b', 'c']) cache.set(key, listing(10), 100);
  t.deepEqual([cache.get('a', 0), cache.size], [undefined, 2]);
  t.is(cache.get('b', 100), undefined);
  t.deepEqual([cache.size, cache.bytes], [1, 10]);
});
