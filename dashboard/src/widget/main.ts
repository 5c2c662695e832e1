/**
 * `widget.js` (docs/channel.md, "The widget"): `<script src="<service>/widget.js" data-key="agp_…"
 * [data-user-id data-user-hash [data-user-name data-user-email]] async></script>` puts a chat
 * launcher on the page; `data-page` (the share page) shows the chat as the whole page. Everything
 * lives in an open shadow root on one `<agents-chat>` element: no global name, no style reaches or
 * leaves the page. The service is the script's own origin.
 */
import { WidgetChat } from './chat.ts';
import { Session, type User } from './session.ts';
import { CSS } from './styles.ts';
import { mountView } from './view.ts';

function mount(script: HTMLScriptElement): void {
  const data = script.dataset;
  const key = data.key;
  if (!key) return;
  // The snippet pasted twice shows one chat.
  if (document.querySelector(`agents-chat[data-key="${CSS_ESCAPE(key)}"]`)) return;
  const user: User | undefined =
    data.userId && data.userHash
      ? {
          id: data.userId,
          hash: data.userHash,
          ...(data.userName ? { name: data.userName } : {}),
          ...(data.userEmail ? { email: data.userEmail } : {}),
        }
      : undefined;
  const host = document.createElement('agents-chat');
  host.dataset.key = key;
  const page = data.page !== undefined;
  // Inline and important: the page's own rules about unknown elements cannot move or hide it.
  host.style.setProperty('all', 'initial', 'important');
  host.style.setProperty('display', 'block', 'important');
  const shadow = host.attachShadow({ mode: 'open' });
  // A constructed sheet: no `<style>` element, so a page's `style-src` policy has nothing to refuse.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  shadow.adoptedStyleSheets = [sheet];
  const chat = new WidgetChat(new Session(new URL(script.src).origin, key, user));
  mountView(shadow, chat, page);
  // The share page is the chat alone: no margin around it.
  if (page) document.body.style.margin = '0';
  document.body.append(host);
}

const CSS_ESCAPE = (value: string) => value.replace(/["\\]/g, '\\$&');

const current = document.currentScript;
if (current instanceof HTMLScriptElement) {
  // An `async` script may run before the body exists.
  if (document.body) mount(current);
  else document.addEventListener('DOMContentLoaded', () => mount(current), { once: true });
}
