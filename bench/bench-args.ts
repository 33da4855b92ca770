/** `--name N` from the command line, or `fallback` when absent or not a number (the benches' options). */
export function numberArgument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? undefined : Number(process.argv[index + 1]);
  return value === undefined || !Number.isFinite(value) ? fallback : value;
}

/** `--name VALUE` from the command line, or `undefined` when absent. */
export function stringArgument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? undefined : process.argv[index + 1];
  return value === undefined || value.startsWith('--') ? undefined : value;
}
