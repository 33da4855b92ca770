import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * JSON logs to stdout (12-factor); the level comes from LOG_LEVEL. Secrets are redacted by path.
 * `to: 'stderr'` is for the one-shot CLI, whose stdout carries its result.
 */
export function createLogger(level: string, name = 'catalog-bridge', to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = {
    name,
    level,
    redact: { paths: ['*.apiKey', '*.token', 'req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
  };
  return to === 'stdout' ? pino(options) : pino(options, pino.destination({ fd: 2, sync: true }));
}
