/**
 * The demo fixtures of docs/interface.md §3. Ids are fixed (valid UUID v7 values) so the seed is
 * idempotent and docs and black-box tests can name them.
 */
export const DEMO_PASSWORD = 'demo-password-1';

const id = (n: number) => `01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

export const ROLES = {
  agencyOwner: {
    id: id(0x101),
    name: 'agency-owner',
    description: 'Manages an agency: its agents, organization settings and plans',
    grants: [
      ['ai.agent', 'read'],
      ['ai.agent', 'create'],
      ['ai.agent', 'update'],
      ['organization', 'read'],
      ['organization', 'update'],
      ['plan', 'read'],
      ['plan', 'create'],
      ['plan', 'update'],
    ],
  },
  platformAdmin: {
    id: id(0x102),
    name: 'platform-admin',
    description: 'Curates the catalog of available MCP servers and the model price list',
    grants: [
      ['platform.ai.available-mcp', 'create'],
      ['platform.ai.available-mcp', 'update'],
      ['platform.ai.available-mcp', 'delete'],
      ['platform.ai.model-pricing', 'update'],
    ],
  },
} as const;

export const ORGANIZATIONS = {
  demoAgency: { id: id(0x201), name: 'Demo Agency', type: 'AGENCY', allowBusinessRegistration: true, userCapacity: 25 },
  otherAgency: { id: id(0x202), name: 'Other Agency', type: 'AGENCY', allowBusinessRegistration: false, userCapacity: 25 },
  platform: { id: id(0x203), name: 'Platform', type: 'PLATFORM', allowBusinessRegistration: false, userCapacity: null },
} as const;

export const USERS = {
  owner: { id: id(0x301), email: 'owner@demo.test', name: 'Demo Owner', organization: 'demoAgency', roles: ['agencyOwner'] },
  member: { id: id(0x302), email: 'member@demo.test', name: 'Demo Member', organization: 'demoAgency', roles: [] },
  otherOwner: { id: id(0x303), email: 'owner@other.test', name: 'Other Owner', organization: 'otherAgency', roles: ['agencyOwner'] },
  admin: { id: id(0x304), email: 'admin@platform.test', name: 'Platform Admin', organization: 'platform', roles: ['platformAdmin'] },
} as const;

export const PLANS = {
  starter: { id: id(0x401), agency: 'demoAgency', name: 'Starter', isPublic: true, isActive: true, maxUsers: 10 },
  legacy: { id: id(0x402), agency: 'demoAgency', name: 'Legacy', isPublic: true, isActive: false, maxUsers: 5 },
} as const;

export const AGENTS = {
  support: {
    id: id(0x501),
    agency: 'demoAgency',
    name: 'Support Assistant',
    description: 'Answers customer questions from the help center',
  },
  research: { id: id(0x502), agency: 'demoAgency', name: 'Research Agent', description: 'Searches the web and summarises sources' },
  otherHelper: { id: id(0x503), agency: 'otherAgency', name: 'Other Helper', description: 'General assistant of Other Agency' },
} as const;
