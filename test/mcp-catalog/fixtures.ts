/** Request bodies for catalog tests: valid variants of each type and a valid entry. */
export const freeVariant = (url = 'https://free.example.com/mcp') => ({
  type: 'free',
  url,
  transportType: 'http',
  credentialSchema: { type: 'free', fields: [] },
});

export const apiKeyVariant = (url = 'https://key.example.com/mcp') => ({
  type: 'apikey',
  url,
  transportType: 'http',
  credentialSchema: {
    type: 'apikey',
    fields: [
      { key: 'Authorization', label: 'API key', type: 'header', required: true, valueTemplate: 'Bearer {value}' },
      { key: 'workspace', label: 'Workspace', type: 'text', required: false },
    ],
  },
});

export const oauthVariant = (url = 'https://oauth.example.com/mcp') => ({
  type: 'oauth',
  url,
  transportType: 'sse',
  credentialSchema: { type: 'oauth', fields: [] },
});

export const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} description`,
  logo: 'logos/deepwiki.svg',
  tags: ['docs'],
  variants: [freeVariant()],
  ...extra,
});
