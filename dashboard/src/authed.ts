/**
 * Calls to the API as the signed-in user: the session's access token, in the chosen workspace
 * (`x-org-id`, `workspace.ts`, unless the call names its organization), and on a 401 one silent
 * refresh and one retry. A refused refresh has already ended the session (`Session.onEnded`).
 */
import { ApiError, requestJson, type RequestOptions } from './api.ts';
import { session } from './session.ts';
import { actingOrganizationId } from './workspace.ts';

export async function api<T>(path: string, given: Omit<RequestOptions, 'token'> = {}): Promise<T> {
  const options = { ...given, organizationId: given.organizationId ?? actingOrganizationId() };
  if (!session.accessToken && !(await session.refresh())) throw new ApiError(401, 'Not signed in');
  const token = session.accessToken;
  try {
    return await requestJson<T>(path, { ...options, token });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || options.signal?.aborted) throw error;
    // Another call may have refreshed meanwhile; otherwise refresh now.
    if (session.accessToken === token && !(await session.refresh())) throw error;
    return requestJson<T>(path, { ...options, token: session.accessToken });
  }
}
