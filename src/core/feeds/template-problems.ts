import type { z } from 'zod';
import { type CompiledExpression, compileExpression, type ExpressionEnvironment } from './compile-expression.js';

/** One thing wrong with a template file, located by its JSON path (`document.children[0].name`). */
export interface TemplateProblem {
  readonly file: string;
  /** `$` for the file as a whole. */
  readonly path: string;
  readonly message: string;
}

export interface ProblemSink {
  readonly file: string;
  readonly problems: TemplateProblem[];
  add(path: string, message: string): void;
}

export function createProblemSink(file: string): ProblemSink {
  const problems: TemplateProblem[] = [];
  return {
    file,
    problems,
    add(path, message) {
      problems.push({ file, path: path === '' ? '$' : path, message });
    },
  };
}

/** `base` extended by an object key or array index, in JavaScript accessor notation. */
export function joinPath(base: string, key: PropertyKey): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const name = String(key);
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return base === '' ? name : `${base}.${name}`;
  return `${base}[${JSON.stringify(name)}]`;
}

/** Reports every issue of a failed zod parse under `base`; returns the data when it parsed. */
export function parseAt<T extends z.ZodType>(sink: ProblemSink, base: string, schema: T, value: unknown): z.infer<T> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    sink.add(issue.path.reduce<string>(joinPath, base), issue.message);
  }
  return undefined;
}

/** Compiles a value expression, reporting its problems at `path`. */
export function compileAt(
  sink: ProblemSink,
  path: string,
  source: string,
  environment: ExpressionEnvironment,
): CompiledExpression | undefined {
  const result = compileExpression(source, environment);
  if (result.ok) return result.expression;
  for (const message of result.problems) sink.add(path, message);
  return undefined;
}

/** Compiles a `pattern` rule (Unicode mode, so `.` is one character), reporting a bad one at `path`. */
export function compilePattern(sink: ProblemSink, path: string, pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch (error) {
    sink.add(path, `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
