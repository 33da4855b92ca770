import type { Logger } from 'pino';
import { type LoggerOptions, pino } from 'pino';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerSettings {
  readonly name?: string;
  /** `stderr` is for the one-shot CLI, whose stdout carries its result. */
  readonly to?: 'stdout' | 'stderr';
  /** `auto`: readable lines on a terminal, JSON otherwise (LOG_FORMAT). Default `json`. */
  readonly format?: LogFormat;
  /** Whether the destination is a terminal (default: asks the stream); for tests. */
  readonly isTerminal?: boolean;
}

/**
 * Whole values of these fields are replaced, at the top level, one level down and in request headers.
 * pino replaces the value wherever the path matches, whatever it holds, and never touches other text.
 */
export const REDACTED_PATHS: readonly string[] = [
  'apiKey',
  'token',
  '*.apiKey',
  '*.token',
  // A Google service-account key file's secret half (docs/channel-push.md, Google).
  'private_key',
  '*.private_key',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
];

/** pino's options: name, level and the redaction of secret fields. */
export function loggerOptions(level: string, name = 'catalog-bridge'): LoggerOptions {
  return { name, level, redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' } };
}

/** What a format means for a destination: `auto` is pretty on a terminal only. */
export function resolveLogFormat(format: LogFormat, isTerminal: boolean): 'json' | 'pretty' {
  return format === 'auto' ? (isTerminal ? 'pretty' : 'json') : format;
}

/**
 * Logs to stdout (12-factor), the level from LOG_LEVEL: JSON lines for machines, or readable lines for people
 * (pino-pretty, run by pino as a transport in a worker thread, so formatting costs the main thread nothing).
 * Secrets are redacted by path.
 */
export function createLogger(level: string, settings: LoggerSettings = {}): Logger {
  const { name = 'catalog-bridge', to = 'stdout', format = 'json' } = settings;
  const fd = to === 'stdout' ? 1 : 2;
  const stream = to === 'stdout' ? process.stdout : process.stderr;
  const isTerminal = settings.isTerminal ?? stream.isTTY === true;
  const options = loggerOptions(level, name);
  if (level !== 'silent' && resolveLogFormat(format, isTerminal) === 'pretty') {
    const transport = pino.transport({
      target: 'pino-pretty',
      options: {
        destination: fd,
        colorize: isTerminal && process.env['NO_COLOR'] === undefined,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,component',
        messageFormat: '{if component}[{component}] {end}{msg}',
        singleLine: true,
      },
    });
    return pino(options, transport);
  }
  return to === 'stdout' ? pino(options) : pino(options, pino.destination({ fd: 2, sync: true }));
}
