import argon2 from 'argon2';

/**
 * argon2id with OWASP's minimum recommended parameters (19 MiB, 2 iterations, 1 lane):
 * OWASP Password Storage Cheat Sheet, "Argon2id". Parameters travel inside the PHC string,
 * so raising them later re-hashes nothing and verifies old hashes as they are.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => argon2.hash(password, OPTIONS);

/** Made once; verifying against it for unknown accounts keeps both failure paths equally slow. */
let decoy: Promise<string> | undefined;

/** Checks a password against a stored hash; with no hash it spends the same time and answers false. */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    decoy ??= hashPassword('decoy password that matches nothing');
    await argon2.verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
