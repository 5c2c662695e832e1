import test from 'ava';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';
import { isConnectionLoss } from '../../app/db/connection-loss.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('a terminated backend, a refused or reset connection and a server shutting down are connection losses', (t) => {
  const lost = [
    new BackendTerminatedError(withCode('terminating connection due to administrator command', '57P01')),
    new BackendTerminatedUnexpectedlyError(new Error('Connection terminated unexpectedly')),
    new ConnectionError('connect ECONNREFUSED 127.0.0.1:5432'),
    withCode('the database system is shutting down', '57P03'),
    withCode('connection failure', '08006'),
    withCode('sorry, too many clients already', '53300'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    new Error('Client has encountered a connection error and is not queryable'),
    new Error('wrapped', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
  ];
  for (const error of lost) t.true(isConnectionLoss(error), error.message);
});

test('errors of the statement itself are not connection losses', (t) => {
  const statementErrors = [
    new UniqueIntegrityConstraintViolationError(withCode('duplicate key value', '23505')),
    withCode('canceling statement due to statement timeout', '57014'),
    withCode('syntax error at or near', '42601'),
    withCode('deadlock detected', '40P01'),
    new Error('Expected a row'),
    'not an error',
    undefined,
  ];
  for (const error of statementErrors) t.false(isConnectionLoss(error), String(error));
});
