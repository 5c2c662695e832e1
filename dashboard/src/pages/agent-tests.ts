/**
 * An agent's Tests page (`#/agents/<id>/tests[?from=<conversation>]`, docs/evaluations.md): its
 * test cases (each with its messages and expectations, Delete behind a confirmation), "Add a
 * test case" (`eval-case-form.ts`), and runs of the cases against the current definition or
 * against the draft being edited on the agent's page (`agent-draft.ts`), followed until they end
 * and shown case by case (`eval-run.ts`). A draft's passing run is kept for the agent page's
 * gated save. The recent runs can be opened again.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { readDraft, recordPassedRun, sameFields, type DraftFields } from '../agent-draft.ts';
import { confirmDialog } from '../confirm-dialog.ts';
import type { Agent } from '../console-types.ts';
import { when } from '../end-user.ts';
import { el, formatInteger } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { caseFormCard, type EvalCase } from './eval-case-form.ts';
import { followRun, resultsView, runSummary, startRun, type Run } from './eval-run.ts';

type Runs = ApiResponse<'GET /ai/agents/:agentId/eval-runs'>;
const STATUS_TEXT: Record<string, string> = { running: 'running', passed: 'passed', failed: 'failed', error: 'error' };

function expectations(expect: EvalCase['expect']): string[] {
  const said: string[] = [];
  if (expect.contains?.length) said.push(`contains ${expect.contains.map((p) => JSON.stringify(p)).join(', ')}`);
  if (expect.notContains?.length) said.push(`does not contain ${expect.notContains.map((p) => JSON.stringify(p)).join(', ')}`);
  if (expect.toolCalls?.length) said.push(`calls ${expect.toolCalls.join(', then ')}`);
  if (expect.noToolCalls) said.push('calls no tool');
  if (expect.judge) said.push(`the judge passes it on: ${expect.judge}`);
  return said;
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = '', fromConversation] = params;
  const heading = pageHeading('Tests');
  const status = statusLine('tests-status');
  root.append(el('p', { class: 'links' }, el('a', { href: `#/agents/${agentId}` }, "Back to the agent's page")), heading, status);
  status.textContent = 'Loading…';
  let agent: Agent;
  let cases: EvalCase[];
  try {
    [agent, { cases }] = await Promise.all([
      api<Agent>(`/api/ai/agents/${agentId}`, { signal }),
      api<{ cases: EvalCase[] }>(`/api/ai/agents/${agentId}/eval-cases`, { signal }),
    ]);
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }
  heading.textContent = `Tests of ${agent.name}`;
  say(status, '', 'ok');
  const saved: DraftFields = {
    instructions: agent.instructions,
    modelId: agent.modelId,
    temperature: agent.temperature,
    maxOutputTokens: agent.maxOutputTokens,
  };
  const stored = readDraft(agent.id, agent.updatedAt);
  const draft = stored && !sameFields(stored.fields, saved) ? stored.fields : undefined;

  // Running.
  const onCurrent = el('input', { type: 'radio', name: 'run-target', id: 'run-target-current', value: 'current' });
  const onDraft = el('input', { type: 'radio', name: 'run-target', id: 'run-target-draft', value: 'draft' });
  (draft ? onDraft : onCurrent).checked = true;
  onDraft.disabled = !draft;
  const runButton = el('button', { type: 'button', id: 'run-tests', 'aria-label': `Run the tests of ${agent.name}` }, 'Run the tests');
  const runStatus = statusLine('run-status');
  const runSlot = el('div', { id: 'run-results' });
  const caseCount = el('p', { class: 'note', id: 'case-count' });
  const caseList = el('ol', { class: 'eval-cases', id: 'case-list' });
  const caseStatus = statusLine('case-list-status');
  const runList = el('ul', { class: 'eval-runs', id: 'run-list' });

  const showRun = (run: Run) => {
    say(runStatus, runSummary(run), run.status === 'running' || run.status === 'passed' ? 'ok' : 'error');
    runSlot.replaceChildren(resultsView(run, 'run-result-list'));
  };
  const loadRuns = async () => {
    try {
      const { runs } = await api<Runs>(`/api/ai/agents/${agentId}/eval-runs`, { signal });
      runList.replaceChildren(
        // Numbered from the oldest of the newest 50 the API lists: two runs of one minute have names of their own.
        ...runs.slice(0, 10).map((run, index) => {
          const open = el(
            'button',
            { type: 'button', class: 'link' },
            `Run ${formatInteger(runs.length - index)}, ${when(run.startedAt)}: ${STATUS_TEXT[run.status]}`,
          );
          open.addEventListener('click', () => {
            api<Run>(`/api/ai/agents/${agentId}/eval-runs/${run.id}`, { signal })
              .then(showRun)
              .catch((error: unknown) => say(runStatus, describeError(error, 'read on ai.agent')));
          });
          return el('li', { 'data-run-id': run.id, 'data-status': run.status }, open);
        }),
      );
      if (runs.length === 0) runList.append(el('li', { class: 'note' }, 'No runs yet.'));
    } catch (error) {
      if (!signal.aborted) runList.replaceChildren(el('li', { class: 'error' }, describeError(error, 'read on ai.agent')));
    }
  };

  const caseItem = (testCase: EvalCase): HTMLElement => {
    const remove = el(
      'button',
      { type: 'button', class: 'danger', id: `case-delete-${testCase.id}`, 'aria-label': `Delete the case ${testCase.name}` },
      'Delete',
    );
    const dialog = confirmDialog({
      id: `case-delete-${testCase.id}`,
      open: remove,
      status: caseStatus,
      title: `Delete the case "${testCase.name}"?`,
      text: 'Runs that ran it keep its result.',
      confirmLabel: 'Delete',
      grant: 'update on ai.agent',
      act: () => api(`/api/ai/agents/${agentId}/eval-cases/${testCase.id}`, { method: 'DELETE' }),
      done: () => {
        cases = cases.filter((c) => c.id !== testCase.id);
        drawCases();
        say(caseStatus, `Deleted "${testCase.name}".`, 'ok');
        heading.focus();
      },
    });
    return el(
      'li',
      { 'data-case-id': testCase.id },
      el('h3', {}, testCase.name),
      el(
        'ol',
        { class: 'case-turns', 'aria-label': `Messages of ${testCase.name}` },
        ...testCase.messages.map((message) =>
          el(
            'li',
            { 'data-role': message.role },
            el('strong', {}, message.role === 'user' ? 'User: ' : 'Agent: '),
            message.parts.map((part) => part.text).join('\n'),
          ),
        ),
      ),
      el('p', {}, `The answer ${expectations(testCase.expect).join('; ')}.`),
      el('div', { class: 'actions' }, remove),
      dialog,
    );
  };
  const drawCases = () => {
    caseList.replaceChildren(...cases.map(caseItem));
    caseCount.textContent =
      cases.length === 0 ? 'No test cases yet: add one below.' : `${formatInteger(cases.length)} ${cases.length === 1 ? 'case' : 'cases'}.`;
    runButton.disabled = cases.length === 0;
  };

  runButton.addEventListener('click', () => {
    const tried = onDraft.checked ? draft : undefined;
    runButton.disabled = true;
    runSlot.replaceChildren();
    say(runStatus, 'Starting the run…', 'ok');
    startRun(agentId, tried)
      .then((runId) => followRun(agentId, runId, signal, showRun))
      .then((ended) => {
        if (ended.status === 'running' && !signal.aborted)
          say(runStatus, 'The run is still going after 10 minutes: open it from the recent runs later.');
        if (ended.status === 'passed' && tried) {
          recordPassedRun(agent.id, agent.updatedAt, tried, ended.id);
          runSlot.prepend(
            el(
              'p',
              {},
              'The draft passed. ',
              el('a', { href: `#/agents/${agentId}` }, `Save the tested draft on the page of ${agent.name}`),
            ),
          );
        }
        return loadRuns();
      })
      .catch((error: unknown) => {
        if (!signal.aborted) say(runStatus, describeError(error, 'update on ai.agent'));
      })
      .finally(() => (runButton.disabled = cases.length === 0));
  });

  root.append(
    card(
      'tests-run',
      'Run the tests',
      el(
        'p',
        { class: 'note' },
        'Each case is answered as a chat turn would be, without changing the agent; its tools do not act (their calls are recorded). Each model call is billed as usage.',
      ),
      el(
        'fieldset',
        { class: 'choices-block' },
        el('legend', {}, 'Run against'),
        el(
          'div',
          { class: 'choices' },
          el('label', { class: 'choice' }, onCurrent, ' The current definition'),
          el(
            'label',
            { class: 'choice' },
            onDraft,
            draft ? " The draft being edited on the agent's page" : " The draft on the agent's page (none: it is unchanged)",
          ),
        ),
      ),
      el('div', { class: 'actions' }, runButton),
      runStatus,
      runSlot,
      el('h3', {}, 'Recent runs'),
      runList,
    ),
    card('tests-cases', 'Test cases', caseCount, caseStatus, caseList),
    caseFormCard({
      agentId,
      agentName: agent.name,
      ...(fromConversation ? { fromConversation } : {}),
      signal,
      added: (created) => {
        cases.push(created);
        drawCases();
      },
    }),
  );
  drawCases();
  void loadRuns();
}
