import { agentRoute } from '../agents/scope.ts';
import { defineRoute } from '../core/route.ts';
import { runningTurnOf } from './conversations.ts';
import { AI_CONVERSATION_NOT_FOUND, AI_STREAM_UNAVAILABLE } from './errors.ts';
import { chatTurns } from './running-turns.ts';
import { ConversationParams } from './schemas.ts';
import { answerTurnStream } from './turn-claim.ts';

const tags = ['chat'];

/** Resume and stop of a running turn (docs/chat.md, "Turns that survive the client"). */
export const turnRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/chat/:conversationId/stream',
    summary: "Resume a running turn's UI message stream (useChat `resume: true`)",
    description:
      "While a turn of the conversation runs (on any instance), its UI message stream from the first chunk, then live, to `data: [DONE]`; 204 when none runs. 503 `AI.STREAM_UNAVAILABLE` while the turn's instance cannot be reached (Redis away): the turn goes on and is saved.",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ConversationParams },
    errors: [AI_CONVERSATION_NOT_FOUND, AI_STREAM_UNAVAILABLE],
    responses: {
      200: { description: 'The running turn’s UI message stream (server-sent events)' },
      204: { description: 'No turn of this conversation runs' },
    },
    handler: async ({ deps, scope, params, ctx }) => {
      const turn = await runningTurnOf(deps, scope, params.conversationId);
      if (!turn) return null;
      return answerTurnStream(ctx, chatTurns(deps), turn.id, () => null);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/chat/:conversationId/stop',
    summary: 'Stop the running turn of a conversation',
    description:
      'Aborts the provider request and tool calls in flight, saves the answer so far (unfinished tool parts end `output-error`) and the usage already reported, and ends the open streams of the turn with `finish`. 204 also when nothing runs.',
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ConversationParams },
    status: 204,
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: { 204: { description: 'Stopped, or nothing ran' } },
    handler: async ({ deps, scope, params }) => {
      const turn = await runningTurnOf(deps, scope, params.conversationId);
      if (turn) await chatTurns(deps).stop(turn.id);
    },
  }),
];
