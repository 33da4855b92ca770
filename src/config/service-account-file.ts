import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Why a service-account key file cannot be used, or `undefined`. Read once at load (before anything listens);
 * the message names the file and the problem, never the contents (they hold the private key).
 */
export function serviceAccountFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return `cannot read the key file ${file} (${code})`;
  }
  let key: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return `the key file ${file} is not a JSON object`;
    key = value as Record<string, unknown>;
  } catch {
    return `the key file ${file} is not JSON`;
  }
  if (key['type'] !== 'service_account') return `the key file ${file} is not a service account key (type is not service_account)`;
  if (typeof key['client_email'] !== 'string' || key['client_email'] === '') return `the key file ${file} has no client_email`;
  if (typeof key['private_key'] !== 'string' || key['private_key'] === '') return `the key file ${file} has no private_key`;
  try {
    createPrivateKey(key['private_key']);
  } catch {
    return `the key file ${file} has a private_key that is not a PEM private key`;
  }
  return undefined;
}
