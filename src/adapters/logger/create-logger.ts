import { type Logger, pino } from 'pino';

export type { Logger };

/** JSON logs to stdout (12-factor); the level comes from LOG_LEVEL. Secrets are redacted by path. */
export function createLogger(level: string, name = 'catalog-bridge'): Logger {
  return pino({
    name,
    level,
    redact: { paths: ['*.apiKey', '*.token', 'req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
  });
}
