/**
 * An agent's documents (its knowledge base, docs/agents-and-tools.md): upload a file with its
 * progress, list each with its size and passages ("chunks"), delete one after a confirmation.
 * The largest file and the media types taken are the route's, from the generated `apiLimits`.
 */
import { apiLimits, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { Agent } from '../console-types.ts';
import { el, formatBytes, formatInteger } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { uploadFile } from '../upload.ts';
import { show } from '../views.ts';

type Document = ApiResponse<'GET /ai/agents/:agentId/documents'>['documents'][number];
const { maxBytes, mediaTypes } = apiLimits['POST /ai/agents/:agentId/documents'].upload;
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** A confirmation dialog for deleting one document; `confirm` runs the deletion. */
function deleteDialog() {
  const title = el('h2', { id: 'document-delete-title' });
  const confirm = el('button', { type: 'button', class: 'danger', id: 'document-delete-confirm' }, 'Delete');
  const cancel = el('button', { type: 'button', id: 'document-delete-cancel' }, 'Cancel');
  const dialog = el(
    'dialog',
    { id: 'document-delete-dialog', 'aria-labelledby': 'document-delete-title', 'aria-describedby': 'document-delete-text' },
    title,
    el('p', { id: 'document-delete-text' }, 'The agent stops finding its passages at once. This cannot be undone.'),
    el('div', { class: 'actions' }, cancel, confirm),
  );
  let run: (() => Promise<void>) | undefined;
  let opener: HTMLElement | undefined;
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    if (dialog.returnValue !== 'deleted' && opener?.isConnected) opener.focus();
    dialog.returnValue = '';
  });
  confirm.addEventListener('click', () => {
    confirm.disabled = cancel.disabled = true;
    void run?.().finally(() => {
      confirm.disabled = cancel.disabled = false;
      dialog.close('deleted');
    });
  });
  return {
    dialog,
    /** Asks about `name`; the safe choice (Cancel) has the focus. */
    ask(name: string, from: HTMLElement, deletion: () => Promise<void>) {
      title.textContent = `Delete ${name}?`;
      run = deletion;
      opener = from;
      dialog.showModal();
      cancel.focus();
    },
  };
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = ''] = params;
  const base = `/api/ai/agents/${agentId}/documents`;
  const heading = pageHeading('Documents');
  const status = statusLine('documents-status');
  const list = el('ul', { class: 'documents', id: 'document-list' });
  const input = el('input', {
    id: 'document-file',
    name: 'file',
    type: 'file',
    accept: mediaTypes.join(','),
    'aria-describedby': 'document-file-help',
  });
  const send = el('button', { type: 'submit' }, 'Upload');
  const progress = el('progress', { id: 'document-progress', max: '100', value: '0', 'aria-label': 'Upload progress' });
  progress.hidden = true;
  const uploadStatus = statusLine('document-upload-status');
  const form = el(
    'form',
    { id: 'document-form', novalidate: '', 'aria-label': 'Upload a document' },
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'document-file' }, 'File'),
      input,
      el('p', { id: 'document-file-help', class: 'note' }, `Plain text, Markdown, HTML or PDF, at most ${formatBytes(maxBytes)}.`),
    ),
    el('div', { class: 'actions' }, send),
    progress,
    uploadStatus,
  );
  const confirmation = deleteDialog();
  root.append(heading, status, card('documents-upload', 'Add a document', form), card('documents-list', 'The documents', list));
  root.append(confirmation.dialog);
  status.textContent = 'Loading…';

  const item = (document: Document): HTMLElement => {
    const remove = el('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${document.name}` }, 'Delete');
    remove.addEventListener('click', () =>
      confirmation.ask(document.name, remove, () =>
        api(`${base}/${document.id}`, { method: 'DELETE' })
          .then(async () => {
            await reload();
            say(status, `${document.name} was deleted.`, 'ok');
            heading.focus();
          })
          .catch((error: unknown) => say(status, describeError(error, 'update on ai.agent'))),
      ),
    );
    return el(
      'li',
      { 'data-document-id': document.id, 'data-bytes': String(document.bytes), 'data-chunks': String(document.chunkCount) },
      el('strong', {}, document.name),
      el(
        'span',
        { class: 'note' },
        `${formatBytes(document.bytes)}, ${formatInteger(document.chunkCount)} ${document.chunkCount === 1 ? 'passage' : 'passages'}, ` +
          `added ${dateTime.format(new Date(document.createdAt))}`,
      ),
      remove,
    );
  };
  const reload = async () => {
    const { documents } = await api<ApiResponse<'GET /ai/agents/:agentId/documents'>>(base, { signal });
    list.replaceChildren(...documents.map(item));
    list.dataset.count = String(documents.length);
    if (documents.length === 0) list.append(el('li', { class: 'note' }, 'No documents yet.'));
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = input.files?.[0];
    if (!file) return say(uploadStatus, 'Choose a file to upload.');
    if (file.size > maxBytes)
      return say(uploadStatus, `${file.name} is ${formatBytes(file.size)}: the largest file taken is ${formatBytes(maxBytes)}.`);
    send.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    say(uploadStatus, `Uploading ${file.name}…`, 'ok');
    const onProgress = (sent: number, total: number) => {
      progress.value = Math.round((sent / total) * 100);
      // Sent whole: the server now reads the file and indexes its passages.
      if (sent === total) say(uploadStatus, `Indexing ${file.name}…`, 'ok');
    };
    uploadFile<ApiResponse<'POST /ai/agents/:agentId/documents'>>(base, file, onProgress, signal)
      .then(async (added) => {
        form.reset();
        await reload();
        say(uploadStatus, `${added.name} was added: ${formatInteger(added.chunkCount)} passages.`, 'ok');
      })
      .catch((error: unknown) => {
        if (!signal.aborted) say(uploadStatus, describeError(error, 'update on ai.agent'));
      })
      .finally(() => {
        send.disabled = false;
        progress.hidden = true;
      });
  });

  try {
    const [agent] = await Promise.all([api<Agent>(`/api/ai/agents/${agentId}`, { signal }), reload()]);
    heading.textContent = `Documents of ${agent.name}`;
    say(status, '', 'ok');
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
  }
}
