import { createConnection, type Socket } from 'node:net';

/**
 * The local operator channel: the embedded database's lock socket (see data-dir-lock.ts) also
 * answers commands from this machine's operator, so a command line tool can act on a running
 * server's data while the server holds the directory (the embedded database is single-process).
 *
 * Only the socket's owner can connect (its file is made owner-only: connecting to a Unix socket
 * needs write access to it), which is the user who can read the database files anyway.
 *
 * Protocol, one exchange per connection, each message one line of JSON: the holder greets with
 * its pid (a plain number line, which is all the lock's probe reads), the client sends
 * `{ "command": name, "args": {...} }`, the holder answers `{ "ok": true, "value": ... }` or
 * `{ "ok": false, "error": { "code", "message", "details"? } }` and closes.
 */
export type OperatorCommand = (args: unknown) => Promise<unknown>;
export type OperatorCommands = Readonly<Record<string, OperatorCommand>>;

export interface OperatorFailure {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type OperatorAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: OperatorFailure };

/** A request line longer than this is refused (commands carry a few fields). */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** A client that sends nothing (the lock's probe) is let go after this long. */
const REQUEST_WAIT_MS = 2_000;
/** A command that the holder has not answered by then is reported as such. */
const ANSWER_WAIT_MS = 30_000;

/**
 * The holder's side: commands arrive once the app serves them (`serve`); a request that comes
 * while the server still starts waits for that, within the client's patience.
 */
export class OperatorChannel {
  #commands: OperatorCommands | undefined;
  #waiting: Array<() => void> = [];

  serve(commands: OperatorCommands): void {
    this.#commands = commands;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Stops serving commands (a stop under way): new requests are told the server is stopping. */
  close(): void {
    this.#commands = {};
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Handles one connection of the lock socket. */
  readonly onConnection = (socket: Socket): void => {
    socket.on('error', () => {});
    socket.write(`${process.pid}\n`);
    let buffer = '';
    const idle = setTimeout(() => socket.end(), REQUEST_WAIT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) {
        if (Buffer.byteLength(buffer) > MAX_REQUEST_BYTES) {
          clearTimeout(idle);
          answer(socket, failure('BAD_USER_INPUT', `request longer than ${MAX_REQUEST_BYTES} bytes`));
        }
        return;
      }
      clearTimeout(idle);
      socket.removeAllListeners('data');
      void this.#run(buffer.slice(0, end)).then((reply) => answer(socket, reply));
    });
    socket.on('end', () => clearTimeout(idle));
  };

  async #run(line: string): Promise<OperatorAnswer> {
    let request: { command?: unknown; args?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      return failure('BAD_USER_INPUT', 'the request is not JSON');
    }
    if (typeof request?.command !== 'string') return failure('BAD_USER_INPUT', 'command: must be a string');
    if (!this.#commands) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        timer = setTimeout(resolve, ANSWER_WAIT_MS);
      });
      clearTimeout(timer);
      if (!this.#commands) return failure('SERVER_STARTING', 'the server is still starting: try again');
    }
    const run = Object.hasOwn(this.#commands ?? {}, request.command)
      ? this.#commands?.[request.command]
      : undefined;
    if (!run) {
      return this.#commands && Object.keys(this.#commands).length === 0
        ? failure('SERVER_STARTING', 'the server is stopping')
        : failure('NOT_FOUND', `unknown command ${JSON.stringify(request.command.slice(0, 64))}`);
    }
    try {
      return { ok: true, value: await run(request.args ?? {}) };
    } catch (error) {
      const { code, message, details } = error as Partial<OperatorFailure>;
      return typeof code === 'string' && typeof message === 'string'
        ? failure(code, message, details)
        : failure('INTERNAL', 'the command failed on the server (see its log)');
    }
  }
}

function failure(code: string, message: string, details?: Readonly<Record<string, unknown>>): OperatorAnswer {
  return { ok: false, error: { code, message, ...(details ? { details } : {}) } };
}

function answer(socket: Socket, reply: OperatorAnswer): void {
  if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
}

/**
 * The client's side: sends one command to whoever holds the lock at `address`. Resolves
 * `undefined` when nobody does (no socket, or a dead one), so the caller can open the database
 * itself; otherwise with the holder's answer.
 */
export function askHolder(
  address: string,
  command: string,
  args: unknown,
): Promise<OperatorAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(address);
    let connected = false;
    let greeted = false;
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the running server did not answer within ${ANSWER_WAIT_MS / 1000} s`));
    }, ANSWER_WAIT_MS);
    const done = (settle: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      settle();
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (!greeted) {
          greeted = true;
          socket.write(`${JSON.stringify({ command, args })}\n`);
          continue;
        }
        try {
          const reply = JSON.parse(line) as OperatorAnswer;
          return done(() => resolve(reply));
        } catch {
          return done(() => reject(new Error('the running server answered something that is not JSON')));
        }
      }
    });
    socket.on('end', () => {
      // A holder that greets and hangs up is an older version that answers no command.
      done(() =>
        reject(
          new Error(
            greeted
              ? 'the running server closed the connection without an answer (is it an older version? restart it)'
              : 'the running server closed the connection',
          ),
        ),
      );
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const nobody = !connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT');
      done(() => (nobody ? resolve(undefined) : reject(error)));
    });
  });
}
