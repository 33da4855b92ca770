import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Each file's duration in seconds from a whole run (`npm run test:durations` writes it). */
const COMMITTED: Readonly<Record<string, number>> = JSON.parse(
  readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
) as Record<string, number>;

/** A file neither vitest's cache nor the committed list knows: a new file, run among the first. */
const UNKNOWN_MS = 60_000;

/**
 * Project by project as vitest orders them (e2e, integration, unit: a worker keeps its loaded modules while it
 * stays in one project; mixing the projects' files cost ~100 s more CPU), and inside a project a file that
 * failed last time first, then the longest first, so that no long file starts near the end and keeps one
 * worker busy alone. Durations come from vitest's own cache of the last run on this machine, else from
 * `file-durations.json`: a clean clone (CI) has no cache, and vitest's fallback there, the larger file first,
 * put 40 s files late (test/README.md, "The suite's time").
 */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const expected = new Map<TestSpecification, { failed: boolean; ms: number }>();
    for (const file of files) {
      const path = relative(config.root, file.moduleId);
      const cached = cache.getFileTestResults(`${file.project.name}:${path}`);
      const committed = COMMITTED[path];
      const ms = cached?.duration ?? (committed === undefined ? UNKNOWN_MS : committed * 1000);
      expected.set(file, { failed: cached?.failed === true, ms });
    }
    const of = (file: TestSpecification) => expected.get(file) ?? { failed: false, ms: UNKNOWN_MS };
    const project = (file: TestSpecification) => file.project.name;
    return [...files].sort(
      (a, b) => project(a).localeCompare(project(b)) || Number(of(b).failed) - Number(of(a).failed) || of(b).ms - of(a).ms,
    );
  }
}
