/**
 * Why an MCP session failed:
 * - `timeout`, `too_large` (one response over its cap), `unreachable`, `unauthorized` (401/403),
 *   `protocol` (not MCP): what the transport saw;
 * - `over_budget`: the responses of the session together passed its byte budget;
 * - `oversized_tool`: a listed tool's field passed its cap (`limit` names it, `tool` the tool);
 * - `rejected`: the server answered a request of ours with a JSON-RPC error (`rpcCode`);
 * - `aborted`: the caller's signal ended the session.
 * `message` names no credential.
 */
export type McpSessionFailureKind =
  'timeout' | 'too_large' | 'over_budget' | 'oversized_tool' | 'unreachable' | 'unauthorized' | 'protocol' | 'rejected' | 'aborted';

export class McpSessionFailure extends Error {
  override name = 'McpSessionFailure';
  readonly kind: McpSessionFailureKind;
  readonly detail: { limit?: string; maxBytes?: number; tool?: string; rpcCode?: number };
  constructor(
    kind: McpSessionFailureKind,
    message: string,
    detail: { limit?: string; maxBytes?: number; tool?: string; rpcCode?: number } = {},
  ) {
    super(message);
    this.kind = kind;
    this.detail = detail;
  }
}
