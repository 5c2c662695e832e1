import test from 'ava';
import { blockedTermsPattern, hasBlockedTerm } from '../../app/chat/guardrails.ts';

let version = 0;
const agentWith = (blockedTerms: string[], id = 'agent') => ({
  id,
  updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, (version += 1))).toISOString(),
  guardrails: { blockedTerms, moderationModel: null, refusal: 'No.' },
});

test('a term matches in any case, also outside ASCII', (t) => {
  const agent = agentWith(['refund', 'Straße', 'ΣΟΦΙΑ']);
  t.true(hasBlockedTerm(agent, 'I want a REFUND now'));
  t.true(hasBlockedTerm(agent, 'die straße hier'));
  t.true(hasBlockedTerm(agent, 'η σοφια μας'));
  t.false(hasBlockedTerm(agent, 'nothing to see'));
});

test('only whole words match: a letter or digit in any script next to the term keeps it apart', (t) => {
  const agent = agentWith(['refund', 'café']);
  t.false(hasBlockedTerm(agent, 'are refunds possible?'));
  t.false(hasBlockedTerm(agent, 'prefund'));
  t.false(hasBlockedTerm(agent, 'refund2'));
  t.false(hasBlockedTerm(agent, 'refund_policy'));
  t.false(hasBlockedTerm(agent, 'cafés'));
  t.false(hasBlockedTerm(agent, 'ärefund'));
  t.true(hasBlockedTerm(agent, '(refund)'));
  t.true(hasBlockedTerm(agent, 'refund.'));
  t.true(hasBlockedTerm(agent, 'le café, svp'));
});

test('a phrase matches that phrase with any whitespace run between its words', (t) => {
  const agent = agentWith(['credit  card']);
  t.true(hasBlockedTerm(agent, 'my Credit\t\n Card number'));
  t.true(hasBlockedTerm(agent, 'credit card'));
  t.false(hasBlockedTerm(agent, 'credit cards'));
  t.false(hasBlockedTerm(agent, 'credit'));
});

test('terms are literal: pattern characters in a term match only themselves', (t) => {
  const agent = agentWith(['a.b', 'x+', '(c)', 'd|e', 'f/g']);
  t.false(hasBlockedTerm(agent, 'axb'));
  t.false(hasBlockedTerm(agent, 'xx'));
  t.false(hasBlockedTerm(agent, 'd'));
  t.true(hasBlockedTerm(agent, 'see a.b here'));
  t.true(hasBlockedTerm(agent, 'say d|e now'));
  t.true(hasBlockedTerm(agent, 'path f/g'));
});

test('a term that starts another: either one trips the check', (t) => {
  const agent = agentWith(['credit', 'credit card']);
  t.true(hasBlockedTerm(agent, 'my credit card'));
  t.true(hasBlockedTerm(agent, 'my credit cards'));
  t.true(hasBlockedTerm(agent, 'credit'));
});

test('no terms, or only blank ones, match nothing and build no pattern', (t) => {
  t.is(blockedTermsPattern(agentWith([])), null);
  t.is(blockedTermsPattern(agentWith(['  ', ''])), null);
  t.false(hasBlockedTerm(agentWith([' ']), 'anything at all'));
});

test('the pattern is built once per agent version: a new updatedAt builds it again', (t) => {
  const agent = agentWith(['refund'], 'versioned');
  const first = blockedTermsPattern(agent);
  t.is(blockedTermsPattern({ ...agent }), first);
  const changed = {
    ...agent,
    updatedAt: new Date(Date.UTC(2027, 0, 1)).toISOString(),
    guardrails: { ...agent.guardrails, blockedTerms: ['return'] },
  };
  t.not(blockedTermsPattern(changed), first);
  t.true(hasBlockedTerm(changed, 'a return'));
  t.false(hasBlockedTerm(changed, 'a refund'));
});
