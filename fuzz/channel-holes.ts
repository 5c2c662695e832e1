import type { AttackCase } from './attack-cases.ts';
import { reservationMargin, visitorReadsSpend } from './budget-attacks.ts';
import { guardrailBypass, namesForStaff, quotaBypass, strangerAsClient, unthrottledReads } from './channel-attacks.ts';
import { startChannelLab } from './channel-lab.ts';
import type { Harness } from './harness.ts';

/**
 * The holes the end-user review found in the web channel, each replayed as an attack case
 * (docs/channel.md, "Tried as an attacker would"): on an app with a scripted model and its limits
 * off, and the reads on one with its limits on.
 */
export async function channelHoles(harness: Harness, ownerToken: string): Promise<AttackCase[]> {
  const lab = await startChannelLab(harness, ownerToken);
  const limited = await startChannelLab(harness, ownerToken, { limited: true });
  try {
    return [
      await guardrailBypass(lab),
      await quotaBypass(lab),
      await strangerAsClient(lab, harness),
      await namesForStaff(lab, harness),
      await visitorReadsSpend(lab, harness),
      await reservationMargin(lab, harness),
      await unthrottledReads(limited),
    ];
  } finally {
    await Promise.all([lab.close(), limited.close()]);
  }
}
