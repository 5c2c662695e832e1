import { el } from './format.ts';
import { describeError, say } from './ui.ts';

/**
 * A confirmation in a modal dialog (ids `<id>-dialog`, `<id>-confirm`, `<id>-cancel`): `open` shows
 * it with the safe choice (Cancel) focused, Escape closes it like Cancel. Confirm runs `act` with
 * both buttons disabled; on success the dialog closes and `done` gets the result, on failure it
 * closes, the focus goes back to `open` and `status` says why (`grant` names the permission).
 */
export function confirmDialog<T>(options: {
  id: string;
  open: HTMLButtonElement;
  status: HTMLElement;
  title: string;
  text: string;
  confirmLabel: string;
  grant: string;
  act: () => Promise<T>;
  done: (result: T) => void;
}): HTMLDialogElement {
  const { id, open, status } = options;
  const confirm = el('button', { type: 'button', class: 'danger', id: `${id}-confirm` }, options.confirmLabel);
  const cancel = el('button', { type: 'button', id: `${id}-cancel` }, 'Cancel');
  const dialog = el(
    'dialog',
    { id: `${id}-dialog`, 'aria-labelledby': `${id}-dialog-title`, 'aria-describedby': `${id}-dialog-text` },
    el('h2', { id: `${id}-dialog-title` }, options.title),
    el('p', { id: `${id}-dialog-text` }, options.text),
    el('div', { class: 'actions' }, cancel, confirm),
  );
  open.addEventListener('click', () => {
    say(status, '', 'ok');
    dialog.showModal();
    cancel.focus();
  });
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    if (dialog.returnValue !== 'done') open.focus();
    dialog.returnValue = '';
  });
  confirm.addEventListener('click', () => {
    confirm.disabled = true;
    cancel.disabled = true;
    options
      .act()
      .then((result) => {
        dialog.close('done');
        options.done(result);
      })
      .catch((error: unknown) => {
        dialog.close();
        say(status, describeError(error, options.grant));
      })
      .finally(() => {
        confirm.disabled = false;
        cancel.disabled = false;
      });
  });
  return dialog;
}
