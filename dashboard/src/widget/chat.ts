/**
 * One end user's chat in the widget: the conversation kept in `localStorage` (read back after a
 * reload, with the answer still being written followed through the resume GET), a message sent
 * and its answer streamed, the end user's own approval answers (`approvals: "end_user"`), and,
 * while an approval waits for staff, a look every few seconds for the turn going on by itself.
 */
import { errorOf, store, WidgetError, type Approvals, type Session } from './session.ts';
import { MessageBuilder, newId, readChunks, type Message } from './stream.ts';

/** How often a conversation waiting for a staff approval looks for its continuation. */
const STAFF_WAIT_POLL_MS = 5_000;

/** Refusals no retry changes: the chat is off, the page's origin is not allowed, the user is not verified. */
const CLOSING_CODES = new Set(['AI.CHANNEL_NOT_FOUND', 'AI.ORIGIN_NOT_ALLOWED', 'AI.END_USER_NOT_VERIFIED']);
const closes = (error: unknown) =>
  error instanceof WidgetError && (CLOSING_CODES.has(error.code) || (error.status === 403 && error.code === ''));

export type ChatView = {
  messages: Message[];
  /** Who answers approvals: the widget shows Approve / Deny only to an end user who may. */
  approvals: Approvals;
  agentName: string;
  greeting: string;
  /** The agency's color (`#rrggbb`), empty for the widget's own. */
  color: string;
  /** A turn is being sent or streamed. */
  busy: boolean;
  /** What is going on, for the status line. */
  status: string;
  /** What went wrong, said as an alert; empty when nothing did. */
  failure: string;
  /** The session is refused (origin, verification, a disabled chat): nothing can be sent. */
  closed: boolean;
};

export class WidgetChat {
  readonly view: ChatView = {
    messages: [],
    approvals: 'staff',
    agentName: '',
    greeting: '',
    color: '',
    busy: false,
    status: '',
    failure: '',
    closed: false,
  };
  #conversationId: string;
  #started: Promise<void> | undefined;
  #poll: ReturnType<typeof setTimeout> | undefined;
  active = false;

  /** Called after every change of `view` (the panel redraws once per animation frame). */
  onChange: () => void = () => {};

  readonly session: Session;

  constructor(session: Session) {
    this.session = session;
    this.#conversationId = store.get(session.conversationKey) ?? newId();
  }

  /** The session, then the kept conversation and its running answer; once (the panel's first opening). */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    this.#set({ status: 'Connecting…' });
    try {
      const info = await this.session.open();
      this.#set({
        agentName: info.agent.name,
        greeting: info.agent.greeting,
        approvals: info.approvals ?? 'staff',
        color: /^#[0-9a-f]{6}$/i.test(info.brand?.primaryColor ?? '') ? info.brand!.primaryColor : '',
      });
      this.#set({ status: '' });
      if (store.get(this.session.conversationKey)) {
        await this.#reload();
        await this.#follow();
      }
    } catch (error) {
      // A refusal that holds (the origin, the verification, the channel) closes the chat; else the next message tries again.
      if (!closes(error)) this.#started = undefined;
      this.#fail(error);
    }
  }

  #set(change: Partial<ChatView>): void {
    Object.assign(this.view, change);
    this.onChange();
  }

  #fail(error: unknown): void {
    const message = error instanceof WidgetError ? error.message : 'The chat is not answering. Try again in a moment.';
    this.#set({ failure: message, status: '', busy: false, closed: this.view.closed || closes(error) });
  }

  /** The stored conversation; a conversation that is gone (404) is forgotten. */
  async #reload(): Promise<void> {
    const response = await this.session.fetch(`/api/public/conversations/${this.#conversationId}`);
    if (!response.ok) {
      const error = await errorOf(response);
      if (error.code !== 'AI.CONVERSATION_NOT_FOUND') throw error;
      this.newConversation();
      return;
    }
    const { messages } = (await response.json()) as { messages: Message[] };
    this.#set({ messages });
  }

  newConversation(): void {
    clearTimeout(this.#poll);
    this.#conversationId = newId();
    store.set(this.session.conversationKey, null);
    this.#set({ messages: [], failure: '', status: '' });
  }

  /** An answer still being written (a reload, a staff approval's continuation): 200 while it runs, 204 when none does. */
  async #follow(): Promise<void> {
    const response = await this.session.fetch(`/api/public/chat/${this.#conversationId}/stream`);
    if (response.status === 200) await this.#stream(response, this.#continued());
    else if (response.status !== 204) {
      const error = await errorOf(response);
      if (error.code !== 'AI.CONVERSATION_NOT_FOUND') throw error;
    }
    this.#watchStaff();
  }

  /** The message an answer goes on in: the last one if it is the assistant's, else a new one. */
  #continued(): Message {
    const last = this.view.messages.at(-1);
    if (last?.role === 'assistant') return last;
    const message: Message = { id: newId(), role: 'assistant', parts: [] };
    this.view.messages.push(message);
    return message;
  }

  async #stream(response: Response, message: Message): Promise<void> {
    const builder = new MessageBuilder(message);
    this.#set({ busy: true, status: 'Answering…' });
    await readChunks(response, (chunk) => {
      builder.apply(chunk);
      this.onChange();
    });
    if (builder.errorText) this.#set({ failure: builder.errorText });
    // The stored conversation is what the service kept (a stop, a cut answer): shown as it is.
    await this.#reload().catch(() => {});
    this.#set({ busy: false, status: builder.finishReason === 'length' ? 'The answer stopped at its length limit.' : '' });
  }

  /**
   * Sends `message` (the last of the request: a user message or answered approvals) and streams the
   * answer into `answer`. False when the service refused it before any answer (nothing was kept).
   */
  async #post(message: Message, answer: Message): Promise<boolean> {
    clearTimeout(this.#poll);
    this.#set({ busy: true, failure: '', status: 'Waiting for the answer…' });
    let sent = false;
    try {
      const response = await this.session.fetch('/api/public/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: this.#conversationId, messages: [message], trigger: 'submit-message' }),
      });
      if (!response.ok) throw await errorOf(response);
      sent = true;
      store.set(this.session.conversationKey, this.#conversationId);
      await this.#stream(response, answer);
    } catch (error) {
      this.#fail(error);
    }
    this.#watchStaff();
    return sent;
  }

  /** Sends a user message; false when it was refused (a quota, a limit), and it is taken back off the log. */
  async send(text: string): Promise<boolean> {
    await this.start();
    if (this.view.busy || this.view.closed) return false;
    const message: Message = { id: newId(), role: 'user', parts: [{ type: 'text', text }] };
    const answer: Message = { id: newId(), role: 'assistant', parts: [] };
    this.view.messages.push(message, answer);
    const sent = await this.#post(message, answer);
    if (!sent) {
      this.view.messages = this.view.messages.filter((kept) => kept !== message && kept !== answer);
      this.onChange();
    }
    return sent;
  }

  /** The end user's own answer to an approval (`approvals: "end_user"`); the turn goes on in the same message. */
  async answer(approvalId: string, approved: boolean): Promise<void> {
    const message = this.view.messages.find((candidate) => candidate.parts.some((part) => part.approval?.id === approvalId));
    const part = message?.parts.find((candidate) => candidate.approval?.id === approvalId);
    if (!message || !part || this.view.busy) return;
    part.state = 'approval-responded';
    part.approval = { id: approvalId, approved };
    // A refused answer leaves the approval as the service kept it.
    if (!(await this.#post(message, message))) await this.#reload().catch(() => {});
  }

  async stop(): Promise<void> {
    const response = await this.session.fetch(`/api/public/chat/${this.#conversationId}/stop`, { method: 'POST' });
    if (!response.ok) this.#fail(await errorOf(response));
  }

  /**
   * While an approval waits for staff and the panel is open, the resume GET is asked every few
   * seconds: the staff's answer starts a turn on the server, which is then followed; a turn that
   * ended between two looks is in the conversation read back.
   */
  #watchStaff(): void {
    clearTimeout(this.#poll);
    const waiting = this.view.approvals === 'staff' && this.view.messages.at(-1)?.parts.some((part) => part.state === 'approval-requested');
    if (!waiting || this.view.closed) return;
    this.#poll = setTimeout(() => {
      if (!this.active || this.view.busy) return this.#watchStaff();
      void this.#reload()
        .then(() => this.#follow())
        .catch((error: unknown) => this.#fail(error));
    }, STAFF_WAIT_POLL_MS);
  }
}
