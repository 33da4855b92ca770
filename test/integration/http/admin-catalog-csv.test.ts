import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createAdminRoutes } from '../../../src/http/admin/admin-routes.js';
import { csvCells } from '../../helpers/csv-cells.js';
import { article, stockedSnapshot } from '../../unit/core/catalog/catalog-fixtures.js';

const TOKEN = 'admin-secret-for-tests';

/** Names a marketer or an attacker with POS access could give articles: each would run as a formula in a spreadsheet. */
const FORMULAS = [
  '=HYPERLINK("http://evil.example/x";"Klikni zde")',
  '-20 % dárkový poukaz',
  '+420 777 123 456',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\tTAB first',
  // Split at the locale's list separator, quotes or not: a Czech Excel reads `;`, an English one `,`.
  "x;=1+cmd|' /C calc'!A0;",
  'y,@SUM(A1)',
];

function adminWith(names: readonly string[]) {
  const snapshot = stockedSnapshot(
    names.map((name, at) => article(`a-${at}`, { name, internalIdentifier: at === 0 ? '=1+1' : `K-${at}`, purchasePrice: 50 })),
    new Map(),
  );
  const app = express();
  app.use(
    createAdminRoutes({
      token: TOKEN,
      runJob: async (job) => ({ job, ok: true, startedAt: new Date(), durationMs: 0, result: undefined }),
      loginDelayMs: 0,
      catalog: () => snapshot,
      purchasePrices: async () => undefined,
    }),
  );
  return app;
}

/** The cells of a CSV body's data rows (the BOM, header and final CRLF left out). */
function cellsOf(body: string, delimiter: string): string[] {
  return body
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .slice(1, -1)
    .flatMap((line) => csvCells(line, delimiter));
}

describe('admin catalog CSV: no formula cells', () => {
  it.each([
    ['rfc4180', ','],
    ['excel', ';'],
  ])(
    'never starts a cell with = + - @ TAB or CR in the %s profile, and keeps the text after a quote mark',
    async (profile, delimiter) => {
      const app = adminWith(FORMULAS);

      const csv = await request(app).get(`/admin/catalog.csv?profile=${profile}`).set('authorization', `Bearer ${TOKEN}`);

      expect(csv.status).toBe(200);
      const cells = cellsOf(csv.text, delimiter);
      expect(cells.length).toBeGreaterThan(FORMULAS.length * 5);
      for (const cell of cells) expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
      for (const name of FORMULAS.slice(0, 5)) expect(cells).toContain(`'${name}`);
      expect(cells).toContain("'=1+1");
      // Opened in a spreadsheet of another locale: split at `;` or `,` without regard to quotes.
      for (const line of csv.text.split('\r\n').slice(1)) {
        for (const piece of line.split(/[;,]/)) expect(piece, line).not.toMatch(/^[=+\-@\t\r]/);
      }
    },
  );
});
