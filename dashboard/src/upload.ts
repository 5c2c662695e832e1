/**
 * A file sent as `multipart/form-data` (field `file`) with upload progress: `fetch` reports no
 * upload progress, so this one call uses XMLHttpRequest. Same origin, the session's bearer token,
 * and on a 401 one silent refresh and one retry, as `api()` does.
 */
import { ApiError, messageOf } from './api.ts';
import { session } from './session.ts';
import { actingOrganizationId } from './workspace.ts';

/** `sent` of `total` bytes of the request body (the form's own bytes included). */
export type Progress = (sent: number, total: number) => void;

function sendOnce<T>(path: string, file: File, token: string | undefined, onProgress: Progress, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', new URL(path, window.location.origin));
    request.setRequestHeader('accept', 'application/json');
    if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
    const organizationId = actingOrganizationId();
    if (organizationId) request.setRequestHeader('x-org-id', organizationId);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    request.addEventListener('load', () => {
      let body: unknown;
      try {
        body = request.responseText ? JSON.parse(request.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (request.status >= 200 && request.status < 300) return resolve(body as T);
      const retryAfter = Number(request.getResponseHeader('retry-after'));
      reject(
        new ApiError(
          request.status,
          messageOf(body, request.status),
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
          body,
        ),
      );
    });
    request.addEventListener('error', () => reject(new ApiError(0, 'The upload failed: the connection was lost.')));
    request.addEventListener('abort', () => reject(new DOMException('The upload was cancelled.', 'AbortError')));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}

/** Posts `file` to `path`; `onProgress` hears the bytes sent. */
export async function uploadFile<T>(path: string, file: File, onProgress: Progress, signal?: AbortSignal): Promise<T> {
  if (!session.accessToken && !(await session.refresh())) throw new ApiError(401, 'Not signed in');
  const token = session.accessToken;
  try {
    return await sendOnce<T>(path, file, token, onProgress, signal);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || signal?.aborted) throw error;
    if (session.accessToken === token && !(await session.refresh())) throw error;
    return sendOnce<T>(path, file, session.accessToken, onProgress, signal);
  }
}
