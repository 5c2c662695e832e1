/**
 * "Test before saving" in the agent's definition form (docs/evaluations.md, "The gate"): the
 * person may require a passing test run before the definition is saved. Then Save stays disabled
 * until a run of the agent's cases on exactly the draft in the form has passed, here ("Test this
 * draft") or on the agent's Tests page; the save sends that run's id as `evaluationRunId`, and the
 * API applies it only if the run passed on exactly the definition the change results in (409
 * `AI.EVALUATION_NOT_PASSED` otherwise). Any edit of the draft needs a new run.
 */
import type { Agent } from '../console-types.ts';
import { chooseGate, gateChosen, passedRunFor, recordPassedRun, writeDraft, type DraftFields } from '../agent-draft.ts';
import { el } from '../format.ts';
import { describeError, say, statusLine } from '../ui.ts';
import { followRun, resultsView, runSummary, startRun } from './eval-run.ts';

export type Gate = {
  block: HTMLElement;
  /** The line under Save that says whether it waits for a run (Save is described by it). */
  note: HTMLElement;
  /** Keeps the form's draft and enables or disables Save for it. */
  update(): void;
  /** The passing run to send with the save of `fields`, when the gate is on (undefined: none needed). */
  runIdFor(fields: DraftFields): string | undefined;
};

export function testBeforeSaving(options: {
  agent: Agent;
  /** The form's fields, or what is wrong with them. */
  read: () => DraftFields | string;
  /** The agent's `updatedAt` the form edits. */
  base: () => string;
  save: HTMLButtonElement;
  signal: AbortSignal;
}): Gate {
  const { agent, read, base, save, signal } = options;
  const checkbox = el('input', { type: 'checkbox', id: 'agent-gate', 'aria-describedby': 'agent-gate-help' });
  checkbox.checked = gateChosen(agent.id);
  const run = el('button', { type: 'button', id: 'agent-gate-run', 'aria-label': `Test this draft of ${agent.name}` }, 'Test this draft');
  const status = statusLine('agent-gate-status');
  const results = el('div', { id: 'agent-gate-results' });
  const help = el(
    'p',
    { id: 'agent-gate-help', class: 'note' },
    'Runs the agent’s test cases on the draft in this form (its tools do not act), and saves only the draft that passed. ',
    el('a', { href: `#/agents/${agent.id}/tests` }, `Test cases of ${agent.name}`),
  );
  const passedRun = (fields: DraftFields) => passedRunFor(agent.id, base(), fields);
  let running = false;
  const note = el('p', { id: 'agent-save-gate', class: 'note' });
  save.setAttribute('aria-describedby', note.id);

  const update = () => {
    const fields = read();
    if (typeof fields !== 'string') writeDraft(agent.id, base(), fields);
    const passed = typeof fields === 'string' ? undefined : passedRun(fields);
    save.disabled = checkbox.checked && passed === undefined;
    run.disabled = running;
    note.textContent = !checkbox.checked
      ? ''
      : passed
        ? 'This draft passed its tests: it can be saved.'
        : 'Save waits for a passing test run of this draft.';
  };
  checkbox.addEventListener('change', () => {
    chooseGate(agent.id, checkbox.checked);
    update();
  });
  run.addEventListener('click', () => {
    const fields = read();
    if (typeof fields === 'string') return say(status, fields);
    writeDraft(agent.id, base(), fields);
    running = true;
    update();
    results.replaceChildren();
    say(status, 'Starting the run…', 'ok');
    startRun(agent.id, fields)
      .then((runId) =>
        followRun(agent.id, runId, signal, (reading) => {
          say(status, runSummary(reading), reading.status === 'running' || reading.status === 'passed' ? 'ok' : 'error');
          results.replaceChildren(resultsView(reading, 'agent-gate-run-results', 'h4'));
        }),
      )
      .then((ended) => {
        if (ended.status === 'passed') recordPassedRun(agent.id, base(), fields, ended.id);
        else if (ended.status === 'running' && !signal.aborted)
          say(status, 'The run is still going after 10 minutes: its result will be on the Tests page.');
      })
      .catch((error: unknown) => {
        if (!signal.aborted) say(status, describeError(error, 'update on ai.agent'));
      })
      .finally(() => {
        running = false;
        if (!signal.aborted) update();
      });
  });

  const block = el(
    'fieldset',
    { class: 'gate', id: 'agent-gate-block' },
    el('legend', {}, 'Test before saving'),
    el('label', { class: 'choice' }, checkbox, ` Require a passing test run before saving ${agent.name}`),
    help,
    el('div', { class: 'actions' }, run),
    status,
    results,
  );
  return { block, note, update, runIdFor: (fields) => (checkbox.checked ? passedRun(fields) : undefined) };
}
