/**
 * The widget's styles, inside its shadow root only. `.root` resets every property the host page
 * could pass down by inheritance (`all: initial`), so the page's fonts and colours stop there.
 * Colours keep 4.5:1 contrast on their backgrounds. At 480 px and below the open panel fills the
 * screen.
 */
export const CSS = `
.root{all:initial;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1c1c}
.root *{box-sizing:border-box}
.root button,.root textarea{font:inherit}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
button{cursor:pointer;border:1px solid transparent;border-radius:8px;padding:6px 12px;background:var(--brand,#1d4ed8);color:#fff}
button:disabled{cursor:default;background:#6b7280}
button:focus-visible,textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
button.quiet{background:transparent;color:var(--brand,#1d4ed8);border-color:#c7d2fe}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;padding:0;
display:grid;place-items:center;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.launcher svg{width:28px;height:28px;fill:#fff}
.panel{position:fixed;right:20px;bottom:88px;z-index:2147483000;width:min(380px,calc(100vw - 40px));
height:min(600px,calc(100vh - 108px));display:flex;flex-direction:column;background:#fff;border:1px solid #d1d5db;
border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.2);overflow:hidden}
.panel[hidden]{display:none}
.page .panel{position:static;width:100%;max-width:760px;height:100dvh;margin:0 auto;border-radius:0;box-shadow:none;border-width:0 1px}
header{display:flex;align-items:center;gap:8px;padding:10px 12px;border-bottom:1px solid #e5e7eb;background:#f8fafc}
h2{flex:1;margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:10px}
.msg{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.msg p{margin:0}
.msg[data-role=user]{align-self:flex-end;background:var(--brand,#1d4ed8);color:#fff}
.msg[data-role=assistant]{align-self:flex-start;background:#f1f5f9}
.tool{margin:6px 0;padding:8px;border:1px solid #cbd5e1;border-radius:8px;background:#fff;white-space:normal}
.tool pre{margin:4px 0 0;max-height:160px;overflow:auto;font:12px/1.4 ui-monospace,Menlo,monospace;white-space:pre-wrap}
.tool .state{color:#374151}
.tool[data-state=approval-requested]{border-color:#b45309}
.actions{display:flex;gap:8px;margin-top:6px}
.waiting{margin-top:6px;color:#92400e;font-weight:600}
.status{margin:0;padding:0 12px;min-height:1.45em;font-size:13px;color:#4b5563}
.alert{margin:0 12px 8px;padding:8px 10px;border-radius:8px;background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.alert[hidden]{display:none}
form{display:flex;gap:8px;padding:10px 12px;border-top:1px solid #e5e7eb}
textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:8px;border:1px solid #9ca3af;border-radius:8px;background:#fff}
@media (max-width:480px){.root:not(.page) .panel{inset:0;width:100%;height:100%;border-radius:0;border:0}}
`;
