import fc from 'fast-check';

/** String fields worth reusing: a refresh token to refresh with, a name to collide with (409). */
const KEPT_STRINGS = new Set(['refreshToken', 'name', 'email']);

/** Fields that name the same kind of thing: an agency is an organization. */
const ALIASES: Record<string, string> = { agencyId: 'organizationId' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The collection a path parameter belongs to: `/api/ai/agents/{agentId}/tools` + `agentId` -> `/api/ai/agents`. */
export const collectionOf = (path: string, parameter: string) => path.slice(0, path.indexOf(`/{${parameter}}`));

/**
 * Ids seen in answers, per principal: under the collection path they were listed or created
 * in, and under their field name (`agentId`). Kept sorted, so that a choice by index is the
 * same choice on every run that saw the same ids.
 */
export class IdPools {
  readonly #pools = new Map<string, Map<string, Set<string>>>();

  harvest(principal: string, operationPath: string, body: unknown): void {
    const collection = operationPath.replace(/\/\{[^}]+\}$/, '');
    const visit = (value: unknown, depth: number) => {
      if (depth > 6 || value === null || typeof value !== 'object') return;
      if (Array.isArray(value)) return value.slice(0, 50).forEach((item) => visit(item, depth + 1));
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (typeof item === 'string' && KEPT_STRINGS.has(key) && item.length <= 200) {
          this.#add(principal, key, item);
        } else if (typeof item === 'string' && UUID.test(item)) {
          if (key === 'id' && depth <= 2) this.#add(principal, collection, item);
          if (key !== 'id') this.#add(principal, key, item);
        } else {
          visit(item, depth + 1);
        }
      }
    };
    visit(body, 0);
  }

  /** A value `principal` knows for fields named `field` from the setup (a channel's publishable key). */
  remember(principal: string, field: string, value: string): void {
    this.#add(principal, field, value);
  }

  #add(principal: string, field: string, id: string) {
    const key = ALIASES[field] ?? field;
    const pools = this.#pools.get(principal) ?? new Map<string, Set<string>>();
    this.#pools.set(principal, pools);
    const pool = pools.get(key) ?? new Set<string>();
    pools.set(key, pool);
    if (pool.size < 200) pool.add(id);
  }

  /** Ids of `principal` under `key` (a collection path or a field name), sorted. */
  ids(principal: string, key: string): string[] {
    return [...(this.#pools.get(principal)?.get(key) ?? [])].sort();
  }

  /** Principals whose ids anonymous callers never get (a public registration into their agency is legitimate). */
  readonly #private = new Set<string>();

  keepFromAnonymous(principal: string): void {
    this.#private.add(principal);
  }

  /** Ids that other principals saw under `key`: another agency's resources. */
  othersIds(principal: string, key: string): string[] {
    return [...this.#pools.keys()]
      .filter((other) => other !== principal && !(principal === 'anonymous' && this.#private.has(other)))
      .flatMap((other) => this.ids(other, key))
      .sort();
  }

  /** Collections a field named `name` points into: `availableMcpId` -> `/api/available-mcps`. */
  #collectionsNamed(principal: string, name: string): string[] {
    const stem = name.replace(/Id$/, '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    if (!stem || stem === name) return [];
    const keys = new Set([...this.#pools.values()].flatMap((pools) => [...pools.keys()]));
    return [...keys].filter((key) => key.startsWith('/') && key.split('/').pop()!.startsWith(stem)).sort();
  }

  /** For a path parameter or body field named `name`: known ids first, then others', then random ones. */
  arbitrary(principal: string, collection: string | undefined, name: string): fc.Arbitrary<string> {
    const collections = collection ? [collection] : this.#collectionsNamed(principal, name);
    const field = ALIASES[name] ?? name;
    const own = [...new Set([...collections.flatMap((key) => this.ids(principal, key)), ...this.ids(principal, field)])];
    const others = [...new Set([...collections.flatMap((key) => this.othersIds(principal, key)), ...this.othersIds(principal, field)])];
    const options: Array<{ weight: number; arbitrary: fc.Arbitrary<string> }> = [{ weight: 1, arbitrary: randomUuidV7 }];
    if (own.length) options.push({ weight: 6, arbitrary: fc.constantFrom(...own) });
    if (others.length) options.push({ weight: 2, arbitrary: fc.constantFrom(...others) });
    return fc.oneof(...options);
  }
}

/** A well-formed UUID v7 that names nothing. */
export const randomUuidV7 = fc.tuple(fc.integer({ min: 0x1000_0000_0000, max: 0x1fff_ffff_ffff }), fc.uuid()).map(
  ([time, uuid]) =>
    `${time
      .toString(16)
      .padStart(12, '0')
      .replace(/^(.{8})(.{4})$/, '$1-$2')}-7${uuid.slice(15, 18)}-8${uuid.slice(20, 23)}-${uuid.slice(24)}`,
);
