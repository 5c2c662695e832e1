/**
 * An agent's website chat (its web channel, docs/channel.md): on or off, the origins whose pages
 * may embed it, who may chat (anonymous or verified users), who answers tool approvals, the daily
 * quota per end user and the greeting, saved whole with `PUT /api/ai/agents/:agentId/channel`
 * (`update` on `ai.agent`). Once the channel exists, the snippet, the share page and the channel
 * secret (`website-chat-embed.ts`). The limits shown are the API's (`apiLimits`).
 */
import { apiLimits, type ApiBody, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { Agent } from '../console-types.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { errorCodeOf, errorSlot, placeIssues } from './form-parts.ts';
import { listEditor } from './list-editor.ts';
import { embedCard, secretCard } from './website-chat-embed.ts';

type Channel = ApiResponse<'GET /ai/agents/:agentId/channel'>;
type ChannelBody = ApiBody<'PUT /ai/agents/:agentId/channel'>;

const LIMITS = apiLimits['PUT /ai/agents/:agentId/channel'].body;

/** A label per mode: a `Record`, so a mode added on the server (the generated types) fails the typecheck here. */
const IDENTITY: Record<Channel['identity'], [string, string]> = {
  anonymous: ['Anyone on your pages', 'Visitors chat without signing in; each browser is one end user.'],
  verified: [
    'Only users your server vouches for',
    "Each page carries the user's id and its hash, made by your server with the channel secret.",
  ],
};
const APPROVALS: Record<Channel['approvals'], [string, string]> = {
  staff: ['Your staff', 'A tool call that needs approval waits for a person of your organization.'],
  end_user: ['The end user', 'The end user approves or denies in the chat.'],
};

/** A fieldset of radio buttons, one per mode, each with its explanation. */
function choices<K extends string>(id: string, legend: string, modes: Record<K, [string, string]>, current: K) {
  const options = (Object.entries(modes) as [K, [string, string]][]).map(([value, [label, help]]) => {
    const radio = el('input', { type: 'radio', name: id, value, id: `${id}-${value}`, 'aria-describedby': `${id}-${value}-help` });
    radio.checked = value === current;
    return el(
      'div',
      { class: 'choice-help' },
      el('label', { for: `${id}-${value}`, class: 'choice' }, radio, ` ${label}`),
      el('p', { class: 'note', id: `${id}-${value}-help` }, help),
    );
  });
  const block = el('fieldset', { class: 'modes', id }, el('legend', {}, legend), ...options);
  return { block, value: () => (block.querySelector<HTMLInputElement>(`input[name="${id}"]:checked`)?.value ?? current) as K };
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = ''] = params;
  const base = `/api/ai/agents/${agentId}`;
  const status = statusLine('website-chat-status');
  root.append(pageHeading('Website chat'), status);
  status.textContent = 'Loading…';
  let agent: Agent;
  let channel: Channel | null;
  try {
    [agent, channel] = await Promise.all([
      api<Agent>(base, { signal }),
      api<Channel>(`${base}/channel`, { signal }).catch((error: unknown) => {
        if (errorCodeOf(error) === 'AI.CHANNEL_NOT_FOUND') return null;
        throw error;
      }),
    ]);
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }
  say(status, channel ? '' : `${agent.name} is not on any website yet: save these settings to make its chat and key.`, 'ok');

  const enabled = el('input', {
    type: 'checkbox',
    id: 'channel-enabled',
    name: 'channel-enabled',
    'aria-describedby': 'channel-enabled-help',
  });
  enabled.checked = channel?.enabled ?? true;
  const origins = listEditor(
    {
      id: 'channel-origins',
      legend: 'Allowed origins',
      itemName: (n) => `Origin ${n}`,
      addLabel: 'Add an origin',
      help:
        'The websites whose pages may embed the chat, each exactly as the browser names it: scheme, host and port only ' +
        '(https://shop.example.com, http://localhost:8080), no path, no wildcard. The share page works without any.',
      maxItems: LIMITS.allowedOrigins.maxItems,
      itemMaxLength: LIMITS['allowedOrigins[]'].maxLength,
      placeholder: 'https://shop.example.com',
      inputAttributes: { inputmode: 'url' },
    },
    channel?.allowedOrigins ?? [],
  );
  const identity = choices('channel-identity', 'Who may chat', IDENTITY, channel?.identity ?? LIMITS.identity.default);
  const approvals = choices('channel-approvals', 'Who answers tool approvals', APPROVALS, channel?.approvals ?? LIMITS.approvals.default);
  const quotaLimits = LIMITS.endUserMessagesPerDay;
  const quota = field(
    'channel-quota',
    'Messages per end user per day',
    {
      type: 'number',
      min: String(quotaLimits.minimum),
      max: String(quotaLimits.maximum),
      step: '1',
      inputmode: 'numeric',
      required: '',
      value: String(channel?.endUserMessagesPerDay ?? quotaLimits.default),
    },
    `New messages one end user may send a day (UTC), ${quotaLimits.minimum} to ${quotaLimits.maximum}; then the chat asks them to come back tomorrow.`,
  );
  const greeting = el(
    'textarea',
    {
      id: 'channel-greeting',
      name: 'channel-greeting',
      rows: '3',
      maxlength: String(LIMITS.greeting.maxLength),
      'aria-describedby': 'channel-greeting-help',
    },
    channel?.greeting ?? '',
  );
  const greetingBlock = el(
    'div',
    { class: 'field' },
    el('label', { for: 'channel-greeting' }, 'Greeting'),
    greeting,
    el(
      'p',
      { id: 'channel-greeting-help', class: 'note' },
      `The first words the chat shows; at most ${LIMITS.greeting.maxLength} characters, may be empty.`,
    ),
  );
  const quotaError = errorSlot(quota.input, quota.block);
  const greetingError = errorSlot(greeting, greetingBlock);
  const save = el('button', { type: 'submit' }, 'Save website chat');
  const saved = statusLine('channel-save-status');
  const form = el(
    'form',
    { id: 'channel-form', novalidate: '', 'aria-label': `Website chat of ${agent.name}` },
    el(
      'div',
      { class: 'toggle' },
      el('label', { for: 'channel-enabled', class: 'choice' }, enabled, ' Enabled'),
      el('p', { id: 'channel-enabled-help', class: 'note' }, 'Off: the widget and the share page do not open, and chats in progress end.'),
    ),
    origins.block,
    identity.block,
    approvals.block,
    quota.block,
    greetingBlock,
    el('div', { class: 'actions' }, save),
    saved,
  );
  const embed = embedCard();
  const secret = secretCard(base);
  root.append(
    card('channel-settings', `${agent.name} on your website`, form),
    embed.block,
    secret.block,
    el('p', { class: 'links' }, el('a', { href: `#/agents/${agentId}` }, `${agent.name}: instructions and model`)),
  );
  const shown = (value: Channel | null) => {
    embed.show(value);
    secret.show(value);
  };
  shown(channel);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    for (const slot of [quotaError, greetingError]) slot.clear();
    origins.clearErrors();
    say(saved, '', 'ok');
    const quotaValue = Number(quota.input.value);
    if (!(Number.isInteger(quotaValue) && quotaValue >= quotaLimits.minimum && quotaValue <= quotaLimits.maximum)) {
      quotaError.show(`A whole number from ${quotaLimits.minimum} to ${quotaLimits.maximum}.`);
      return quotaError.focus();
    }
    const body: ChannelBody = {
      enabled: enabled.checked,
      allowedOrigins: origins.values(),
      identity: identity.value(),
      approvals: approvals.value(),
      endUserMessagesPerDay: quotaValue,
      greeting: greeting.value,
    };
    save.disabled = true;
    say(saved, 'Saving…', 'ok');
    api<Channel>(`${base}/channel`, { method: 'PUT', body })
      .then((answer) => {
        origins.set(answer.allowedOrigins);
        shown(answer);
        say(saved, answer.enabled ? 'Saved: the chat is on.' : 'Saved: the chat is off.', 'ok');
        say(status, '', 'ok');
      })
      .catch((error: unknown) => {
        const placed = placeIssues(error, [], ([name, index], message) => {
          if (name === 'allowedOrigins') origins.showError(index === undefined ? undefined : Number(index), message);
          else if (name === 'endUserMessagesPerDay') quotaError.show(message);
          else if (name === 'greeting') greetingError.show(message);
          else return false;
          return true;
        });
        say(saved, placed ? 'Not saved: see the marked fields.' : describeError(error, 'update on ai.agent'));
        // The first marked field in the form's order takes the focus.
        if (origins.hasError()) origins.focusError();
        else if (quotaError.shown()) quotaError.focus();
        else if (greetingError.shown()) greetingError.focus();
      })
      .finally(() => {
        save.disabled = false;
      });
  });
}
