import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, resolveLogFormat } from '../../../../src/adapters/logger/create-logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('resolveLogFormat', () => {
  it('is pretty on a terminal and JSON elsewhere with auto; json and pretty are taken as said', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });
});

describe('log redaction by path', () => {
  it('replaces whole values of secret fields, at the top, one level down and in headers', () => {
    const { stream, lines } = capture();
    const logger = pino(loggerOptions('info'), stream);

    logger.info(
      {
        apiKey: 'k',
        token: 'network',
        pos: { apiKey: 'a8F3kQ9zL2mX7pW4', baseUrl: 'https://pos.example.test' },
        req: { headers: { 'x-api-key': 'a8F3kQ9zL2mX7pW4', authorization: 'Bearer t0ken-value', accept: 'text/csv' } },
      },
      'network check with k',
    );

    const [line] = lines();
    expect(line).toMatchObject({
      apiKey: '[redacted]',
      token: '[redacted]',
      pos: { apiKey: '[redacted]', baseUrl: 'https://pos.example.test' },
      req: { headers: { 'x-api-key': '[redacted]', authorization: '[redacted]', accept: 'text/csv' } },
      msg: 'network check with k',
    });
  });

  it('never touches the message or other fields, whatever the secrets are', () => {
    const { stream, lines } = capture();
    const logger = pino(loggerOptions('info'), stream);

    logger.child({ component: 'catalog' }).warn({ reason: 'network error', apiKey: 'k' }, 'network is unreachable');

    expect(lines()[0]).toMatchObject({ reason: 'network error', msg: 'network is unreachable', component: 'catalog' });
  });
});
