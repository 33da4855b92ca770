import { CONFIG_VARIABLES, ConfigSchema } from './config-schema.js';

/**
 * `.env.example` generated from the settings table, so it cannot drift from the schema
 * (a test compares the committed file with this output; `npm run config:example` rewrites it).
 */
export function renderEnvExample(): string {
  const defaults = ConfigSchema.parse({}) as Record<string, unknown>;
  const lines = [
    '# catalog-bridge configuration. Copy to .env and uncomment what you change.',
    '# Generated from src/config/config-schema.ts by `npm run config:example`; do not edit by hand.',
    '',
  ];
  for (const name of CONFIG_VARIABLES) {
    const description = ConfigSchema.shape[name].description ?? '';
    const value = defaults[name];
    lines.push(`# ${description}`);
    lines.push(`# ${name}=${formatDefault(value)}`);
    lines.push('');
  }
  return lines.join('\n');
}

function formatDefault(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .map(([key, mapped]) => `${key}=${String(mapped)}`)
      .join(',');
  }
  return String(value);
}
