/** The operations of an OpenAPI 3.1 document, as the fuzzer needs them. */

export type JsonSchema = Record<string, unknown>;

export type Parameter = { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema };

export type Operation = {
  /** `GET /api/ai/agents/{agentId}` */
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  secured: boolean;
  /**
   * The route's scope (`x-scope`, app/core/openapi.ts): `parameter` names a resource (`name`,
   * an `agent`) of the caller's agency, and `errorCode` is the 404 for any other id.
   */
  scope?: OperationScope;
  /** Whether the route acts in the organization `x-org-id` names (`x-acting-organization`): what the workspace trespass names another in. */
  acting: boolean;
  /** Documented statuses and their body schemas (undefined: no body documented). */
  responses: Map<number, JsonSchema | undefined>;
};

export type OperationScope = { name: string; parameter: string; errorCode: string };

type Document = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        security?: unknown[];
        'x-scope'?: OperationScope;
        'x-acting-organization'?: boolean;
        responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
      }
    >
  >;
};

export function operationsOf(document: unknown): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries((document as Document).paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const responses = new Map<number, JsonSchema | undefined>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        responses.set(Number(status), response.content?.['application/json']?.schema);
      }
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
        secured: Boolean(operation.security?.length),
        ...(operation['x-scope'] ? { scope: operation['x-scope'] } : {}),
        acting: operation['x-acting-organization'] === true,
        responses,
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

/** Every path's methods, for the `Allow` check of 405 answers. */
export function methodsByPath(operations: Operation[]): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const methods = byPath.get(operation.path) ?? new Set<string>();
    methods.add(operation.method);
    byPath.set(operation.path, methods);
  }
  return byPath;
}

/** The documented path template that `target` (path and query, as sent) falls on, if any. */
export function templateOf(target: string, templates: string[]): string | undefined {
  const path = target.split('?')[0]!;
  return templates.find((template) => templateRegExp(template).test(path));
}

const compiledTemplates = new Map<string, RegExp>();
function templateRegExp(template: string): RegExp {
  let regexp = compiledTemplates.get(template);
  if (!regexp) {
    const source = template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    // Like the router: one optional trailing slash.
    compiledTemplates.set(template, (regexp = new RegExp(`^${source}/?$`)));
  }
  return regexp;
}
