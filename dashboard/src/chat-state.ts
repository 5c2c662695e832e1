/**
 * The AI SDK's `AbstractChat` keeps its messages and status in a `ChatState` the UI layer
 * provides (React's `useChat` provides one; this console has no framework). This one holds them
 * in fields and calls `onChange` after each change, which the chat page batches to one render
 * per animation frame.
 */
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

export class ConsoleChatState implements ChatState<UIMessage> {
  #messages: UIMessage[];
  #status: ChatStatus = 'ready';
  #error: Error | undefined;
  readonly #onChange: () => void;

  constructor(messages: UIMessage[], onChange: () => void) {
    this.#messages = messages;
    this.#onChange = onChange;
  }

  get status(): ChatStatus {
    return this.#status;
  }
  set status(status: ChatStatus) {
    this.#status = status;
    this.#onChange();
  }
  get error(): Error | undefined {
    return this.#error;
  }
  set error(error: Error | undefined) {
    this.#error = error;
    this.#onChange();
  }
  get messages(): UIMessage[] {
    return this.#messages;
  }
  set messages(messages: UIMessage[]) {
    this.#messages = [...messages];
    this.#onChange();
  }
  pushMessage = (message: UIMessage) => {
    this.#messages = [...this.#messages, message];
    this.#onChange();
  };
  popMessage = () => {
    this.#messages = this.#messages.slice(0, -1);
    this.#onChange();
  };
  replaceMessage = (index: number, message: UIMessage) => {
    // The SDK keeps writing into the streamed message: keep a copy, as React's state does.
    this.#messages = [...this.#messages.slice(0, index), this.snapshot(message), ...this.#messages.slice(index + 1)];
    this.#onChange();
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** `AbstractChat` over a `ConsoleChatState`. */
export class ConsoleChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage> & { messages: UIMessage[]; onChange: () => void }) {
    const { messages, onChange, ...rest } = init;
    super({ ...rest, state: new ConsoleChatState(messages, onChange) });
  }
}
