import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlitePushOutbox } from '../../../src/adapters/push/sqlite-push-outbox.js';
import { all, exec, openSqliteFile } from '../../../src/adapters/store/sqlite-calls.js';
import { PUSH_MASK } from '../../../src/core/push/outbox.js';

// A store file written by a build before claim priorities: `push_outbox` without `low`, the old index.
const OLD_SHAPE = `
  CREATE TABLE push_outbox (
    channel TEXT NOT NULL, target TEXT NOT NULL, mask INTEGER NOT NULL, gen INTEGER NOT NULL,
    since_ms INTEGER NOT NULL, due_ms INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
    PRIMARY KEY (channel, target)
  );
  CREATE INDEX push_outbox_due ON push_outbox (channel, due_ms);
  CREATE TABLE push_meta (key TEXT PRIMARY KEY, value TEXT);
  INSERT INTO push_meta (key, value) VALUES ('cursor', 'v7');
  INSERT INTO push_outbox (channel, target, mask, gen, since_ms, due_ms) VALUES
    ('google', 'p:1', ${PUSH_MASK.FULL}, 1, 10, 10),
    ('google', 'p:2', ${PUSH_MASK.FULL}, 1, 20, 20),
    ('google', 'p:3', ${PUSH_MASK.FULL | PUSH_MASK.STOCK}, 2, 5, 30),
    ('google', 'p:4', ${PUSH_MASK.PRICE}, 1, 40, 40);`;

const dir = mkdtempSync(join(tmpdir(), 'push-outbox-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite push outbox: a store file of an older build', () => {
  it('gains the priority column (set from each mask) and the claim index at open, keeping its rows', async () => {
    const path = join(dir, 'old.sqlite');
    const old = await openSqliteFile(path);
    await exec(old, OLD_SHAPE);
    await new Promise<void>((resolve, reject) => old.close((error) => (error ? reject(error) : resolve())));

    const outbox = openSqlitePushOutbox(path);
    expect(await outbox.cursor()).toBe('v7');
    // Live rows (p:3 holds a sale merged into a re-send) first, then the re-sends, each earliest due first.
    const claimed = await outbox.claim('google', 100, 10, 60_000);
    expect(claimed.map((row) => [row.target, row.gen])).toEqual([
      ['p:3', 2],
      ['p:4', 1],
      ['p:1', 1],
      ['p:2', 1],
    ]);
    // New rows after the upgrade get their priority as usual.
    await outbox.enqueue('v7', 'v8', [
      { channel: 'google', target: 'p:5', mask: PUSH_MASK.FULL, atMs: 1_100 },
      { channel: 'google', target: 'p:6', mask: PUSH_MASK.AVAIL, atMs: 1_200 },
    ]);
    expect((await outbox.claim('google', 1_200, 1, 1_000)).map((row) => row.target)).toEqual(['p:6']);
    await outbox.close();

    // Opened again: nothing to add, the same shape.
    const again = openSqlitePushOutbox(path);
    expect(await again.cursor()).toBe('v8');
    await again.close();
    const db = await openSqliteFile(path);
    const columns = await all<{ name: string }>(db, 'PRAGMA table_info(push_outbox)', []);
    const indexes = await all<{ name: string }>(db, 'PRAGMA index_list(push_outbox)', []);
    const plan = await all<{ detail: string }>(
      db,
      "EXPLAIN QUERY PLAN SELECT * FROM push_outbox WHERE channel = 'google' AND low = 1 AND due_ms <= 5 ORDER BY due_ms, target LIMIT 3",
      [],
    );
    await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    expect(columns.filter((column) => column.name === 'low')).toHaveLength(1);
    expect(indexes.map((index) => index.name)).toContain('push_outbox_claim');
    expect(indexes.map((index) => index.name)).not.toContain('push_outbox_due');
    expect(plan.map((step) => step.detail).join('\n')).toContain('push_outbox_claim');
  });
});
