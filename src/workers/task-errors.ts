/**
 * Errors of tasks run in worker threads. An error's `code` does not cross the thread boundary (only name,
 * message and stack are cloned), so a task's coded error travels at the head of its message, `CODE: message`
 * (`withCodeInMessage` in the worker), and is made a `WorkerTaskError` with that code again on the other side
 * (`taskErrorOf`): a sync report then names the same code whichever thread read the document.
 */

/** A task whose worker threw, crashed or exited: the run that needed it fails cleanly. */
export class WorkerFailedError extends Error {
  override readonly name = 'WorkerFailedError';
  readonly code = 'WORKER_FAILED';
}

/** An error a task threw with a code of its own, carried across the thread boundary. */
export class WorkerTaskError extends Error {
  override readonly name = 'WorkerTaskError';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** In the worker: a coded error as one whose message carries the code. */
export function withCodeInMessage(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return error;
  return new Error(`${error.code}: ${error.message}`);
}

/** Outside: the task's coded error again, or `WORKER_FAILED` naming `task` for anything else (a crash). */
export function taskErrorOf(task: string, error: unknown): Error {
  const text = error instanceof Error ? error.message : String(error);
  const coded = /^([A-Z][A-Z0-9_]+): ([\s\S]*)$/.exec(text);
  if (coded?.[1] !== undefined) return new WorkerTaskError(coded[1], coded[2] ?? '');
  return new WorkerFailedError(`worker task ${task} failed: ${text}`, { cause: error });
}
