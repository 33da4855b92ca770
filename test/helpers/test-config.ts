import { type Config, loadConfig } from '../../src/config/load-config.js';

/** A valid configuration for tests: in-memory store, quiet logs, any free port; override what matters. */
export function createTestConfig(env: Readonly<Record<string, string | undefined>> = {}): Config {
  return loadConfig({ STORE_URL: 'memory://', LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', ...env });
}
