/**
 * Where a worker entry module is: the compiled `.js` beside this file (`npm start`, the image), or, when
 * running from the `.ts` sources (tests, benchmarks), `dev-entry.mjs`, which loads the `.ts` entry named
 * in `workerData.entry` through tsx. Pass `workerData` on to the pool as given here.
 */
export function workerEntry(name: string, data: object): { readonly filename: string; readonly workerData: object } {
  const source = import.meta.url.endsWith('.ts');
  return workerEntryAt(new URL(`./${name}${source ? '.ts' : '.js'}`, import.meta.url), data);
}

/** The same for an entry module given by its URL (tests stand in their own entries). */
export function workerEntryAt(entry: URL, data: object): { readonly filename: string; readonly workerData: object } {
  if (!entry.pathname.endsWith('.ts')) return { filename: entry.href, workerData: data };
  return { filename: new URL('./dev-entry.mjs', import.meta.url).href, workerData: { ...data, entry: entry.href } };
}
