import { describe, expect, it } from 'vitest';
import {
  isSmallSync,
  LARGE_SYNC_ARTICLES,
  LARGE_SYNC_YOUNG_GENERATION_MB,
  SMALL_SYNC_ARTICLES,
  SYNC_YOUNG_GENERATION_MB,
  syncYoungGenerationMb,
} from '../../../src/workers/catalog-worker-tasks.js';

describe('workers/the full sync thread young generation', () => {
  it('is small for a small catalog served beside it, large for a large one or when nothing is served yet', () => {
    expect(SYNC_YOUNG_GENERATION_MB).toBeLessThan(LARGE_SYNC_YOUNG_GENERATION_MB);
    expect(syncYoungGenerationMb(100_000)).toBe(SYNC_YOUNG_GENERATION_MB);
    expect(syncYoungGenerationMb(LARGE_SYNC_ARTICLES - 1)).toBe(SYNC_YOUNG_GENERATION_MB);
    expect(syncYoungGenerationMb(LARGE_SYNC_ARTICLES)).toBe(LARGE_SYNC_YOUNG_GENERATION_MB);
    expect(syncYoungGenerationMb(1_000_000)).toBe(LARGE_SYNC_YOUNG_GENERATION_MB);
    expect(syncYoungGenerationMb(undefined)).toBe(LARGE_SYNC_YOUNG_GENERATION_MB);
  });

  it('stays after its run only for a small catalog, never for the first sync (its size unknown)', () => {
    expect(SMALL_SYNC_ARTICLES).toBeLessThan(LARGE_SYNC_ARTICLES);
    expect(isSmallSync(500)).toBe(true);
    expect(isSmallSync(SMALL_SYNC_ARTICLES - 1)).toBe(true);
    expect(isSmallSync(SMALL_SYNC_ARTICLES)).toBe(false);
    expect(isSmallSync(100_000)).toBe(false);
    expect(isSmallSync(undefined)).toBe(false);
  });
});
