import type { PrincipalType } from '../core/route.ts';

/** A route path of one principal type, written out in full where the route is declared. */
export type PrincipalPath<Rest extends string> = `/identity/auth/${PrincipalType}/${Rest}`;

/** The principal type a path names: `/identity/auth/client/login` -> `client`. */
export function principalIn(path: PrincipalPath<string>): PrincipalType {
  const type = path.split('/')[3];
  if (type !== 'user' && type !== 'client') throw new Error(`not a principal path: ${path}`);
  return type;
}
