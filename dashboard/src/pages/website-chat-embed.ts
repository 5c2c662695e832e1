/**
 * The website chat page's lower half, once the channel exists: the snippet to paste (and its
 * verified variant), the share page, and the channel secret: made with
 * `POST /api/ai/agents/:agentId/channel/secret` after a confirmation, shown once, with the recipe
 * of `userHash` (lowercase hex HMAC-SHA256(secret, user id)) for the business's server.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import { card, statusLine } from '../ui.ts';
import { confirmDialog } from '../confirm-dialog.ts';
import { copyBlock } from './form-parts.ts';

type Channel = ApiResponse<'GET /ai/agents/:agentId/channel'>;

/** The widget's script tag; `verified` adds the signed-in user's id and hash, which the business's server writes. */
export function snippet(origin: string, publishableKey: string, verified: boolean): string {
  const user = verified ? ' data-user-id="USER_ID" data-user-hash="USER_HASH"' : '';
  return `<script src="${origin}/widget.js" data-key="${publishableKey}"${user} async></script>`;
}

/**
 * `userHash` on the business's server, in three languages: the same lowercase hex HMAC-SHA256 of
 * the user's id (UTF-8) under the channel secret, read from the server's environment.
 */
export const RECIPES: [language: string, id: string, code: string][] = [
  [
    'Node.js',
    'node',
    `import { createHmac } from 'node:crypto';

// The channel secret stays on your server: an environment variable, never in a page.
export function userHash(userId) {
  return createHmac('sha256', process.env.AGENT_CHANNEL_SECRET).update(String(userId), 'utf8').digest('hex');
}`,
  ],
  [
    'Python',
    'python',
    `import hashlib, hmac, os

# The channel secret stays on your server: an environment variable, never in a page.
def user_hash(user_id: str) -> str:
    secret = os.environ["AGENT_CHANNEL_SECRET"].encode()
    return hmac.new(secret, str(user_id).encode("utf-8"), hashlib.sha256).hexdigest()`,
  ],
  [
    'PHP',
    'php',
    `<?php
// The channel secret stays on your server: an environment variable, never in a page.
function user_hash(string $userId): string {
    return hash_hmac('sha256', $userId, getenv('AGENT_CHANNEL_SECRET'));
}`,
  ],
];

export function embedCard(): { block: HTMLElement; show(channel: Channel | null): void } {
  const origin = location.origin;
  const state = el('p', { class: 'note', id: 'channel-embed-state' });
  const plain = copyBlock('channel-snippet', 'the snippet', '');
  const verified = copyBlock('channel-snippet-verified', 'the snippet for verified users', '');
  const plainPart = el(
    'div',
    { class: 'part' },
    el('h3', {}, 'The snippet'),
    el('p', { class: 'note' }, 'Paste it into every page that shows the chat, before </body>.'),
    plain.block,
  );
  const verifiedPart = el(
    'div',
    { class: 'part' },
    el('h3', {}, 'The snippet for users signed in to your site'),
    el(
      'p',
      { class: 'note' },
      "Your server writes the user's id for USER_ID and its hash (the recipe below) for USER_HASH; the chat then knows them " +
        'as the same user on every device.',
    ),
    verified.block,
  );
  const share = el('a', { id: 'channel-share-link', target: '_blank', rel: 'noopener' });
  const shareNote = el('p', { class: 'note', id: 'channel-share-note' });
  const sharePart = el('div', { class: 'part' }, el('h3', {}, 'The share page'), shareNote, el('p', { class: 'url' }, share));
  const block = card('channel-embed', 'Put it on a website', state, plainPart, verifiedPart, sharePart);
  return {
    block,
    show(channel) {
      for (const part of [plainPart, verifiedPart, sharePart]) part.hidden = channel === null;
      if (!channel) {
        state.textContent = 'Save the settings above to make the chat’s key and its snippet.';
        return;
      }
      state.textContent = !channel.enabled
        ? 'The chat is off: the snippet and the share page show nothing until it is enabled.'
        : channel.allowedOrigins.length === 0
          ? 'No website is allowed yet: add your site’s origin above. Until then only the share page works.'
          : `Public key ${channel.publishableKey}: it is in your pages, anyone may read it.`;
      state.classList.toggle('warn', !channel.enabled || channel.allowedOrigins.length === 0);
      // A verified channel refuses pages without a user: only the verified snippet works there.
      plainPart.hidden = channel.identity === 'verified';
      plain.set(snippet(origin, channel.publishableKey, false));
      verified.set(snippet(origin, channel.publishableKey, true));
      // The share page has no user of the business's to name: a verified channel refuses its visitors.
      const verifiedOnly = channel.identity === 'verified';
      shareNote.textContent = verifiedOnly
        ? 'The same chat as a whole page. It does not open while only verified users may chat: it has no user to name.'
        : 'The same chat as a whole page, to link to from anywhere.';
      shareNote.classList.toggle('warn', verifiedOnly);
      const url = `${origin}/chat/${channel.publishableKey}`;
      share.href = url;
      share.textContent = url;
    },
  };
}

export function secretCard(base: string): { block: HTMLElement; show(channel: Channel | null): void } {
  const status = statusLine('channel-secret-status');
  const saveFirst = el(
    'p',
    { class: 'note', id: 'channel-secret-save-first' },
    'Save the settings above first: the secret belongs to the channel.',
  );
  const created = el('div', { id: 'channel-secret-created', 'aria-live': 'polite' });
  const open = el('button', { type: 'button', id: 'channel-secret-new' }, 'Make a new secret');
  const dialog = confirmDialog({
    id: 'channel-secret',
    open,
    status,
    title: 'Make a new channel secret?',
    text:
      'A secret made before stops working at once: users your server signed with it are refused until your server uses the ' +
      'new one. The new secret is shown once.',
    confirmLabel: 'Make the new secret',
    grant: 'update on ai.agent',
    act: () => api<ApiResponse<'POST /ai/agents/:agentId/channel/secret'>>(`${base}/channel/secret`, { method: 'POST' }),
    done: ({ secret }) => showOnce(created, secret),
  });
  const recipes = RECIPES.map(([language, id, code]) =>
    el('div', { class: 'recipe' }, el('h4', {}, language), copyBlock(`channel-recipe-${id}`, `the ${language} recipe`, code).block),
  );
  const block = card(
    'channel-secret',
    'Verified users: the channel secret',
    el(
      'p',
      { class: 'note' },
      'Your server proves who its signed-in user is with userHash = the lowercase hex HMAC-SHA256 of the user’s id under the ' +
        'channel secret. Keep the secret on your server only: anyone who has it can chat as any of your users.',
    ),
    el('div', { class: 'actions' }, open),
    saveFirst,
    status,
    created,
    el('h3', { class: 'part' }, 'userHash on your server'),
    ...recipes,
    dialog,
  );

  return {
    block,
    show(channel) {
      open.disabled = channel === null;
      saveFirst.hidden = channel !== null;
    },
  };
}

/** The new secret, this once, with Copy and the warning; the focus goes to its Copy button. */
function showOnce(container: HTMLElement, secret: string): void {
  const shown = copyBlock('channel-secret-value', 'the secret', secret);
  container.replaceChildren(
    el(
      'div',
      { class: 'secret' },
      el(
        'p',
        { class: 'note warn', id: 'channel-secret-warning' },
        'Copy the new secret now and keep it on your server: you will not see it again.',
      ),
      shown.block,
    ),
  );
  container.querySelector<HTMLButtonElement>('#channel-secret-value-copy')?.focus();
}
