import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id (the library's default algorithm) with OWASP's minimum recommended parameters:
 * 19 MiB, 2 iterations, 1 lane (OWASP Password Storage Cheat Sheet, "Argon2id"). Parameters
 * travel inside the PHC string, so raising them later keeps old hashes verifiable.
 */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, OPTIONS);

/** Made once; verifying against it for unknown accounts keeps both failure paths equally slow. */
let decoy: Promise<string> | undefined;

/** Checks a password against a stored hash; with no hash it spends the same time and answers false. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword('decoy password that matches nothing');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
