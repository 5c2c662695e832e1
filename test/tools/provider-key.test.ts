import test from 'ava';
import { parseProviderKey } from '../../app/tools/builtins.ts';

test('a provider key names a built-in provider, or an MCP server by its id in lower case', (t) => {
  t.deepEqual(parseProviderKey('web'), { kind: 'builtin', provider: 'web' });
  t.deepEqual(parseProviderKey('mcp:0190a000-0000-7000-8000-00000000ABCD'), {
    kind: 'mcp',
    serverId: '0190a000-0000-7000-8000-00000000abcd',
  });
});

test('an mcp: key without a UUID names nothing', (t) => {
  for (const key of [
    'mcp:',
    'mcp:not-a-uuid',
    'mcp:0190a000-0000-7000-8000-00000000abcd ',
    'mcp:mcp:0190a000-0000-7000-8000-00000000abcd',
  ]) {
    t.is(parseProviderKey(key), null, key);
  }
});
