/** `owner@demo.test` -> `o***@demo.test`, `+34600111222` -> `+34*****1222`: enough to trace, not to contact. */
export function maskRecipient(to: string): string {
  const at = to.indexOf('@');
  if (at > 0) return `${to[0]}***${to.slice(at)}`;
  return to.length > 6 ? `${to.slice(0, 3)}${'*'.repeat(to.length - 7)}${to.slice(-4)}` : '***';
}
