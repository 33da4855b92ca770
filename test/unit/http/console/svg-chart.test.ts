import { describe, expect, it } from 'vitest';
import { type ChartPoint, niceTicks, renderLineChart } from '../../../../src/http/console/svg-chart.js';

const options = { summary: 'Duration: 1 s to 3 s', formatValue: (value: number) => `${value} s`, emptyText: 'No runs yet' };

function pointsOf(...values: (number | undefined)[]): ChartPoint[] {
  return values.map((value, index) => ({ value, label: `run ${index + 1}` }));
}

/** The y coordinates of the points drawn as circles. */
function circleYs(svg: string): number[] {
  return [...svg.matchAll(/<circle cx="[^"]+" cy="([^"]+)"/g)].map((match) => Number(match[1]));
}

describe('niceTicks', () => {
  it('covers the range with round steps', () => {
    expect(niceTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 12)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(-40, 40)).toEqual([-40, -20, 0, 20, 40]);
  });

  it('gives a range around equal values, from zero for a positive value', () => {
    expect(niceTicks(5, 5)[0]).toBe(0);
    expect(niceTicks(5, 5).at(-1)).toBeGreaterThanOrEqual(7.5);
    expect(niceTicks(-5, -5)).toEqual([-8, -6, -4, -2, 0]);
    expect(niceTicks(0, 0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('never loops on non-finite input', () => {
    expect(niceTicks(Number.NaN, Number.POSITIVE_INFINITY)).toEqual(niceTicks(0, 1));
  });
});

describe('renderLineChart', () => {
  it('is an accessible image that scales: role, label, title and viewBox', () => {
    const svg = renderLineChart(pointsOf(1, 2, 3), options);

    expect(svg).toMatch(/^<svg class="chart" role="img" aria-label="Duration: 1 s to 3 s" viewBox="0 0 600 200"/);
    expect(svg).toContain('<title>Duration: 1 s to 3 s</title>');
    expect(svg).toContain('<polyline');
    expect(circleYs(svg)).toHaveLength(3);
    // Higher values are drawn higher (smaller y).
    const [first = 0, second = 0, third = 0] = circleYs(svg);
    expect(first).toBeGreaterThan(second);
    expect(second).toBeGreaterThan(third);
  });

  it('labels a few ticks on the value axis', () => {
    const svg = renderLineChart(pointsOf(0, 97), options);

    expect(svg).toContain('>0 s</text>');
    expect(svg).toContain('>100 s</text>');
    expect([...svg.matchAll(/text-anchor="end" dominant-baseline="middle"/g)].length).toBeGreaterThanOrEqual(3);
  });

  it('escapes every text it is given', () => {
    const svg = renderLineChart([{ value: 1, label: '<script>"a" & b</script>' }], {
      ...options,
      summary: 'a "quoted" <b>',
      formatValue: () => '<x>',
      firstLabel: "it's <now>",
    });

    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<b>');
    expect(svg).not.toContain('<x>');
    expect(svg).toContain('&lt;script&gt;&quot;a&quot; &amp; b&lt;/script&gt;');
    expect(svg).toContain('aria-label="a &quot;quoted&quot; &lt;b&gt;"');
    expect(svg).toContain('it&#39;s &lt;now&gt;');
  });

  it('says so when there is nothing to draw', () => {
    const svg = renderLineChart([], options);

    expect(svg).toContain('No runs yet');
    expect(svg).not.toContain('<circle');
    expect(svg).toContain('role="img"');
  });

  it('draws a single point in the middle, without a line', () => {
    const svg = renderLineChart(pointsOf(42), { ...options, firstLabel: 'today', lastLabel: 'today' });

    expect(svg).not.toContain('<polyline');
    expect(svg).toMatch(/<circle cx="332" /);
    expect(svg.match(/>today</g)).toHaveLength(1);
  });

  it('draws equal values as a flat line inside the plot', () => {
    const ys = circleYs(renderLineChart(pointsOf(7, 7, 7), options));

    expect(new Set(ys).size).toBe(1);
    expect(ys[0]).toBeGreaterThan(12);
    expect(ys[0]).toBeLessThan(168);
  });

  it('draws zero and negative values without NaN', () => {
    const zeros = renderLineChart(pointsOf(0, 0), options);
    const negative = renderLineChart(pointsOf(-5, 3, 0), options);

    expect(zeros).not.toContain('NaN');
    expect(negative).not.toContain('NaN');
    expect(negative).toContain('>-6 s</text>');
    const [below = 0, above = 0] = circleYs(negative);
    expect(below).toBeGreaterThan(above);
  });

  it('marks failed runs with a cross, on the axis when they have no value', () => {
    const svg = renderLineChart(
      [
        { value: 10, label: 'ok' },
        { value: undefined, failed: true, label: 'failed: POS_UNAVAILABLE' },
        { value: 12, label: 'ok' },
      ],
      options,
    );

    expect(svg.match(/class="failed-point"/g)).toHaveLength(1);
    expect(svg).toContain('<title>failed: POS_UNAVAILABLE</title>');
    expect(circleYs(svg)).toHaveLength(2);
    expect(svg).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
    // The cross sits on the zero line (y 168 for a range from 0).
    expect(svg).toMatch(/M[\d.]+ 163L[\d.]+ 173/);
  });
});
