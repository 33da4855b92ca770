/**
 * Problems are counted in full but kept only as the first few examples: a hostile sheet of a million bad
 * rows must not make a million report objects.
 */
export interface ProblemTally<P extends { readonly code: string }> {
  add(problem: P): void;
  readonly count: number;
  readonly counts: Partial<Record<P['code'], number>>;
  readonly examples: readonly P[];
}

export function createProblemTally<P extends { readonly code: string }>(maxExamples: number): ProblemTally<P> {
  let count = 0;
  const counts: Partial<Record<P['code'], number>> = {};
  const examples: P[] = [];
  return {
    add(problem) {
      count += 1;
      const code: P['code'] = problem.code;
      counts[code] = (counts[code] ?? 0) + 1;
      if (examples.length < maxExamples) examples.push(problem);
    },
    get count() {
      return count;
    },
    counts,
    examples,
  };
}

/** Characters of a value quoted in a message: enough to find the cell, never a whole 1 MB cell. */
const QUOTED_CHARS = 60;

/**
 * A value as a message quotes it: JSON-quoted (so line breaks and control characters show), cut after
 * `QUOTED_CHARS` characters with an ellipsis.
 *
 * @example quoteValue('Káva') // '"Káva"'
 */
export function quoteValue(value: string): string {
  return value.length <= QUOTED_CHARS ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, QUOTED_CHARS))}…`;
}
