/**
 * Where a worker entry module is: the compiled `.js` beside this file (`npm start`, the image), or, when
 * running from the `.ts` sources (tests, benchmarks), `dev-entry.mjs`, which loads the `.ts` entry named
 * in `workerData.entry` through tsx. Pass `workerData` on to the pool as given here.
 */
export function workerEntry(name: string, data: object): { readonly filename: string; readonly workerData: object } {
  if (!import.meta.url.endsWith('.ts')) return { filename: new URL(`./${name}.js`, import.meta.url).href, workerData: data };
  return {
    filename: new URL('./dev-entry.mjs', import.meta.url).href,
    workerData: { ...data, entry: new URL(`./${name}.ts`, import.meta.url).href },
  };
}
