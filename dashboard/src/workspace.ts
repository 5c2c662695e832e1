/**
 * The workspace the console acts in (docs/identity.md, "Acting in a workspace"): the signed-in
 * user's own organization, or, for agency staff, one of the agency's client businesses. Every call
 * to the API sends the chosen business as `x-org-id` (`authed.ts`, `upload.ts`, the chat's fetch);
 * none is sent for the user's own organization. The choice is kept in this tab's `sessionStorage`
 * (a reload stays in it) and forgotten on sign-out.
 */
import { requestJson } from './api.ts';
import type { ApiResponse } from './api-types.generated.ts';

const KEY = 'console.workspace';

export type Organization = { id: string; name: string; type: string };
/** A client workspace of the agency, as the switcher lists it. */
export type Business = { id: string; name: string };

type State = {
  /** The user's own organization (undefined until read, or when the account may not read it). */
  home: Organization | undefined;
  /** The agency's businesses (empty for anyone else, or when the account may not list them). */
  businesses: Business[];
  /** The business acted in, or undefined for the user's own organization. */
  acting: Business | undefined;
};

const state: State = { home: undefined, businesses: [], acting: undefined };

/** The `x-org-id` to send: the chosen business, or none for the user's own organization. */
export const actingOrganizationId = (): string | undefined => state.acting?.id;

export const homeOrganization = (): Organization | undefined => state.home;

export const clientBusinesses = (): readonly Business[] => state.businesses;

/** Whether the user's own organization is an agency (the one that has client workspaces). */
export const isAgency = (): boolean => state.home?.type === 'AGENCY';

/** The name of the organization acted in, for pages that say where they act. */
export const actingName = (): string => state.acting?.name ?? state.home?.name ?? 'your organization';

/** The switcher lists the businesses by name. */
const byName = (businesses: Business[]) => [...businesses].sort((a, b) => a.name.localeCompare(b.name));

/** Reads the user's organization and, for an agency, its businesses; keeps a stored choice that is still one of them. */
export async function loadWorkspaces(token: string): Promise<void> {
  const read = <T>(path: string, query?: Record<string, string>) => requestJson<T>(path, { token, query }).catch(() => undefined);
  const home = await read<ApiResponse<'GET /organization/my'>>('/api/organization/my');
  state.home = home && { id: home.id, name: home.name, type: home.type };
  const listed = isAgency() ? await read<{ businesses: Business[] }>('/api/agency/businesses', { limit: '100' }) : undefined;
  state.businesses = byName((listed?.businesses ?? []).map(({ id, name }) => ({ id, name })));
  const stored = sessionStorage.getItem(KEY);
  state.acting = state.businesses.find((business) => business.id === stored);
  if (!state.acting) sessionStorage.removeItem(KEY);
}

/** Acts in `businessId` from now on (undefined or the home organization's id: in the user's own). */
export function actIn(businessId: string | undefined): void {
  state.acting = state.businesses.find((business) => business.id === businessId);
  if (state.acting) sessionStorage.setItem(KEY, state.acting.id);
  else sessionStorage.removeItem(KEY);
}

/** Adds a business made in this tab (Clients' "Create a workspace") to the switcher's list. */
export function addBusiness(business: Business): void {
  if (!state.businesses.some((known) => known.id === business.id)) state.businesses = byName([...state.businesses, business]);
}

/** Forgets everything (sign-out). */
export function forgetWorkspaces(): void {
  state.home = undefined;
  state.businesses = [];
  state.acting = undefined;
  sessionStorage.removeItem(KEY);
}
