import { describe, expect, it } from 'vitest';
import { createSyncPhases } from '../../../../src/services/catalog/sync-phases.js';

describe('sync phases', () => {
  it('names the phase after the last one ended, within the run that started at `since`', () => {
    let now = new Date('2026-11-26T10:00:00Z');
    const phases = createSyncPhases(() => now);
    const since = new Date('2026-11-26T10:00:00Z');

    expect(phases.current(since)).toBe('units');
    now = new Date('2026-11-26T10:00:01Z');
    phases.onPhase('units', 10);
    expect(phases.current(since)).toBe('articles');
    phases.onPhase('articles', 10);
    expect(phases.current(since)).toBe('sources');
    phases.onPhase('merge', 10);
    expect(phases.current(since)).toBe('fingerprint');
    phases.onPhase('publish', 10);
    expect(phases.current(undefined)).toBeUndefined();
    // A new run started after the last phase ended has not ended one yet.
    expect(phases.current(new Date('2026-11-26T10:00:05Z'))).toBe('units');
  });
});
