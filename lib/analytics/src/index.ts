// Public API of @agents/analytics: named re-exports only.
export {};
