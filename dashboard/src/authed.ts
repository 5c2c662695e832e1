/**
 * Calls to the API as the signed-in user: the session's access token, in the chosen workspace
 * (`x-org-id`, `workspace.ts`, unless the call names its organization), and on a 401 one silent
 * refresh and one retry. A refused refresh has already ended the session (`Session.onEnded`).
 */
import { ApiError, requestJson, requestText, type RequestOptions } from './api.ts';
import { session } from './session.ts';
import { actingOrganizationId } from './workspace.ts';

/** Sends with the session's token; on a 401 refreshes once and sends again. */
async function signed<T>(given: Omit<RequestOptions, 'token'>, call: (options: RequestOptions) => Promise<T>): Promise<T> {
  const options = { ...given, organizationId: given.organizationId ?? actingOrganizationId() };
  if (!session.accessToken && !(await session.refresh())) throw new ApiError(401, 'Not signed in');
  const token = session.accessToken;
  try {
    return await call({ ...options, token });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || options.signal?.aborted) throw error;
    // Another call may have refreshed meanwhile; otherwise refresh now.
    if (session.accessToken === token && !(await session.refresh())) throw error;
    return call({ ...options, token: session.accessToken });
  }
}

export function api<T>(path: string, given: Omit<RequestOptions, 'token'> = {}): Promise<T> {
  return signed(given, (options) => requestJson<T>(path, options));
}

/** A download as the signed-in user (`accept`: the type asked for, e.g. `text/csv`). */
export function apiText(path: string, accept: string, given: Omit<RequestOptions, 'token'> = {}): Promise<{ text: string; type: string }> {
  return signed(given, (options) => requestText(path, accept, options));
}
