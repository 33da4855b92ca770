import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { errorBody, HTTP_ERRORS, type HttpErrorCode, statusOf } from '../../../src/http/error-codes.js';

const REPORT_CODES = new URL('../../../docs/report-codes.md', import.meta.url);
const CODES = Object.keys(HTTP_ERRORS) as HttpErrorCode[];

describe('the HTTP error codes registry', () => {
  it('gives every code an entry in docs/report-codes.md', async () => {
    const text = await readFile(REPORT_CODES, 'utf8');
    const missing = CODES.filter((code) => !text.includes(`<a id="${code}"></a>`));
    expect(missing, 'codes without an entry <a id="CODE"> in docs/report-codes.md').toEqual([]);
  });

  it('lists every code with its status in the table of docs/report-codes.md#http-error-codes', async () => {
    const text = await readFile(REPORT_CODES, 'utf8');
    const rows = new Map(
      [...text.matchAll(/^\| \[`([A-Z_]+)`\]\(#\1\) \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]),
    );
    for (const code of CODES) expect(rows.get(code), code).toBe(statusOf(code));
    expect([...rows.keys()].sort()).toEqual([...CODES].sort());
  });

  it('answers with error statuses only', () => {
    for (const code of CODES) expect(statusOf(code) >= 400 && statusOf(code) < 600, code).toBe(true);
  });

  it('writes the error body of the API', () => {
    expect(JSON.parse(errorBody('NOT_FOUND', 'No route'))).toEqual({ error: { code: 'NOT_FOUND', message: 'No route' } });
    expect(JSON.parse(errorBody('FEED_RENDERING')).error.message).toBe(HTTP_ERRORS.FEED_RENDERING.message);
  });
});
