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
      ['ai.approval', 'update'],
      ['organization', 'read'],
      ['organization', 'update'],
      ['organization.member', 'read'],
      ['organization.member', 'create'],
      ['organization.member', 'delete'],
      ['plan', 'read'],
      ['plan', 'create'],
      ['plan', 'update'],
    ],
  },
  // Created by migration 1201 with this id; repeated here so the seed's accounts can hold it.
  businessOwner: {
    id: id(0x103),
    name: 'business-owner',
    description: 'Runs a business workspace: its agents, approvals, members and settings',
    grants: [
      ['ai.agent', 'read'],
      ['ai.agent', 'create'],
      ['ai.agent', 'update'],
      ['ai.approval', 'update'],
      ['organization', 'read'],
      ['organization', 'update'],
      ['organization.member', 'read'],
      ['organization.member', 'create'],
      ['organization.member', 'delete'],
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
  // Demo Agency takes client self-registrations (the demo shows a client's whole path); Other Agency does not.
  demoAgency: {
    id: id(0x201),
    name: 'Demo Agency',
    type: 'AGENCY',
    allowBusinessRegistration: true,
    allowClientRegistration: true,
    userCapacity: 25,
  },
  // A client workspace of Demo Agency: its agency's staff act in it with `x-org-id`, its owner sees it alone.
  demoBakery: {
    id: id(0x204),
    name: 'Demo Bakery',
    type: 'BUSINESS',
    parentId: id(0x201),
    allowBusinessRegistration: false,
    allowClientRegistration: false,
    userCapacity: null,
  },
  otherAgency: {
    id: id(0x202),
    name: 'Other Agency',
    type: 'AGENCY',
    allowBusinessRegistration: false,
    allowClientRegistration: false,
    userCapacity: 25,
  },
  platform: {
    id: id(0x203),
    name: 'Platform',
    type: 'PLATFORM',
    allowBusinessRegistration: false,
    allowClientRegistration: false,
    userCapacity: null,
  },
} as const;

export const USERS = {
  owner: { id: id(0x301), email: 'owner@demo.test', name: 'Demo Owner', organization: 'demoAgency', roles: ['agencyOwner'] },
  member: { id: id(0x302), email: 'member@demo.test', name: 'Demo Member', organization: 'demoAgency', roles: [] },
  bakeryOwner: { id: id(0x305), email: 'bakery@demo.test', name: 'Bakery Owner', organization: 'demoBakery', roles: ['businessOwner'] },
  otherOwner: { id: id(0x303), email: 'owner@other.test', name: 'Other Owner', organization: 'otherAgency', roles: ['agencyOwner'] },
  admin: { id: id(0x304), email: 'admin@platform.test', name: 'Platform Admin', organization: 'platform', roles: ['platformAdmin'] },
} as const;

/**
 * The organizations' own end customers (principals of type `client`): they reach an agent only
 * through its web channel, where a client token makes a verified session (docs/channel.md).
 */
export const CLIENTS = {
  customer: { id: id(0x351), email: 'customer@demo.test', name: 'Demo Customer', organization: 'demoAgency' },
} as const;

export const PLANS = {
  starter: { id: id(0x401), agency: 'demoAgency', name: 'Starter', isPublic: true, isActive: true, maxUsers: 10 },
  legacy: { id: id(0x402), agency: 'demoAgency', name: 'Legacy', isPublic: true, isActive: false, maxUsers: 5 },
} as const;

/** The demo agents' instructions: what an agency would write before putting them in front of a business. */
const SUPPORT_INSTRUCTIONS = [
  "You are the Support Assistant of Demo Agency's help center. You answer customers' questions about the agency's products and services.",
  '',
  'Rules:',
  '- Answer from the knowledge base: search it (search_knowledge_base) before you answer, and base the answer on the passages you find. Name the document an answer comes from.',
  '- When the knowledge base does not cover the question, say plainly that you do not know and offer to pass the question to a human colleague. Never guess or invent policies, prices or dates.',
  '- Be friendly and brief: a short answer first, then the steps if the customer needs them.',
  "- Answer in the customer's language.",
  '- Never ask for passwords or payment card numbers.',
].join('\n');

const RESEARCH_INSTRUCTIONS = [
  'You are the Research Agent of Demo Agency. You research questions on the web and write short, sourced summaries.',
  '',
  'Rules:',
  '- Search the web (web_search) for every question, and read the most relevant pages (fetch_url) before you summarise them.',
  '- Cite your sources: every claim is followed by the source it comes from as a markdown link, and the answer ends with a list of the sources you used.',
  '- Prefer primary and recent sources; when sources disagree, say so and show both.',
  '- When you cannot find an answer, say so rather than guessing.',
].join('\n');

export const AGENTS = {
  support: {
    id: id(0x501),
    agency: 'demoAgency',
    name: 'Support Assistant',
    description: 'Answers customer questions from the help center',
    instructions: SUPPORT_INSTRUCTIONS,
  },
  research: {
    id: id(0x502),
    agency: 'demoAgency',
    name: 'Research Agent',
    description: 'Searches the web and summarises sources',
    instructions: RESEARCH_INSTRUCTIONS,
  },
  bakeryHelper: {
    id: id(0x504),
    agency: 'demoBakery',
    name: 'Bakery Helper',
    description: "Answers the bakery's customers about orders and opening hours",
    instructions:
      "You are the assistant of Demo Bakery. Answer questions about orders, opening hours and the day's bread briefly and kindly.",
  },
  otherHelper: {
    id: id(0x503),
    agency: 'otherAgency',
    name: 'Other Helper',
    description: 'General assistant of Other Agency',
    instructions: '',
  },
} as const;
