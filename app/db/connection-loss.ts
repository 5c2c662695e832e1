import { BackendTerminatedError, BackendTerminatedUnexpectedlyError, ConnectionError } from 'slonik';

/**
 * SQLSTATE classes and codes that mean the session is gone, not that the statement was wrong
 * (PostgreSQL, Appendix A "Error Codes"): 08 connection exception, 57P01 admin_shutdown
 * (pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections.
 */
const LOST_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** Socket errors of node:net while connecting to or talking with the server. */
const LOST_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Messages of pg and of Slonik's driver for a client whose connection has already gone. */
const LOST_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Client is (pending )?destroy|timeout exceeded when trying to connect)/i;

/**
 * Did this error come from losing the database connection (a terminated backend, a server
 * that is down or restarting, a pool that cannot connect) rather than from the query itself?
 * Follows `cause` a few levels, since Slonik wraps the driver's error.
 */
export function isConnectionLoss(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (
      current instanceof BackendTerminatedError ||
      current instanceof BackendTerminatedUnexpectedlyError ||
      current instanceof ConnectionError
    ) {
      return true;
    }
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_SOCKET.has(code))) return true;
    if (LOST_MESSAGE.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether the error, or one of the causes Slonik wraps it in, carries this SQLSTATE. */
export function hasSqlState(error: unknown, sqlState: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if ((current as { code?: unknown }).code === sqlState) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
