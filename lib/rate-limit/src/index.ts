// Public API of @agents/rate-limit: named re-exports only.
export {};
