import { describe, expect, it } from 'vitest';
import { pushSection } from '../../../../src/http/console/push-section.js';

/** The overview's "Channel push" section (docs/channel-push.md#status-and-metrics). */

describe('pushSection', () => {
  it('is absent when no channel is configured', () => {
    expect(pushSection(undefined, 'en', '/docs/channel-push')).toBe('');
    expect(pushSection({}, 'cs', '/docs/channel-push')).toBe('');
  });

  it("shows the channel's message escaped, marked failing while newer than the last success", () => {
    const html = pushSection(
      {
        shoptet: {
          mode: 'live',
          pending: 1200,
          oldestPendingAgeS: 125,
          lastSuccessAt: '2026-11-26T10:00:00.000Z',
          lastErrorAt: '2026-11-26T10:05:00.000Z',
          lastError: 'HTTP 500 <b>"bad"</b> & worse',
          lastErrorKind: 'server',
        },
      },
      'en',
      '/docs/channel-push#status-and-metrics',
    );
    expect(html).toContain('HTTP 500 &lt;b&gt;&quot;bad&quot;&lt;/b&gt; &amp; worse');
    expect(html).not.toContain('<b>');
    expect(html).toContain('class="push-error failed"');
    expect(html).toContain('(channel error)');
    expect(html).toContain('<td>Shoptet</td>');
    expect(html).toContain('<time datetime="2026-11-26T10:00:00.000Z">');
  });

  it('shows quota and the last reconciliation only when present, in Czech too', () => {
    const withQuota = pushSection(
      {
        google: {
          mode: 'paused',
          pending: 0,
          quota: { used: 1500, limit: 10000, resetAt: '2026-11-26T12:00:00.000Z' },
          lastReconcileAt: '2026-11-26T03:30:00.000Z',
        },
      },
      'cs',
      '/docs/channel-push',
    );
    expect(withQuota).toContain('Odesílání do kanálů');
    expect(withQuota).toContain('pozastaveno');
    expect(withQuota).toMatch(/1[\s\u00a0]500 z 10[\s\u00a0]000, obnoví se/);
    expect(withQuota).toContain('<time datetime="2026-11-26T03:30:00.000Z">');
    const without = pushSection({ meta: { mode: 'dry-run', pending: 0 } }, 'en', '/docs/channel-push');
    expect(without).toContain('dry run');
    expect(without).not.toContain(' of ');
    expect(without).toContain('not yet');
  });
});
