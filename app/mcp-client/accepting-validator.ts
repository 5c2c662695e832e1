import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The SDK client's `jsonSchemaValidator` for this service: it compiles nothing and accepts every
 * value. Without it the client compiles each listed tool's `outputSchema` with AJV,
 * synchronously, on the event loop: a 13 KB schema of 200 properties each `$ref`-ing 200 more
 * takes seconds of CPU. Listing tools needs no validation; a tool's structured result is passed
 * on as the server sent it, not checked against its `outputSchema` (docs/mcp.md, Decisions).
 */
const acceptAll: JsonSchemaValidator<unknown> = (input) => ({ valid: true, data: input, errorMessage: undefined });

export const acceptingValidator: jsonSchemaValidator = {
  getValidator: <T>() => acceptAll as JsonSchemaValidator<T>,
};
