import { pino } from 'pino';

export type Logger = pino.Logger;

/** JSON logs on stderr: stdout stays free for protocol traffic (MCP over stdio). */
export function createLogger(level: pino.LevelWithSilent, base: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'vigil', ...base },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          '*.password',
          '*.smtp_password',
          '*.bot_token',
          '*.auth_token',
          '*.apiKey',
          'req.headers["x-api-key"]',
        ],
        censor: '<redacted>',
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
