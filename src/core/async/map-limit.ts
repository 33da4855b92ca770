/** Runs `task` over `inputs` with at most `limit` in flight; results keep the input order; the first failure rejects. */
export async function mapLimit<In, Out>(inputs: readonly In[], limit: number, task: (input: In) => Promise<Out>): Promise<Out[]> {
  const results: Out[] = new Array(inputs.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await task(inputs[index] as In);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return results;
}
