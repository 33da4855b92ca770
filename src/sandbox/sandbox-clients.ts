import { toEan13 } from './ean13.js';
import type { PosAddress, PosClient } from './pos-resources.js';
import { createRandom, hash32, hex24 } from './prng.js';

const SALT_CLIENT = 20;
const SEED_CLIENT_COUNT = 12;

const PEOPLE: readonly (readonly [string, string])[] = [
  ['jana', 'nováková'],
  ['petr', 'svoboda'],
  ['eva', 'dvořáková'],
  ['martin', 'černý'],
  ['lucie', 'procházková'],
  ['tomáš', 'kučera'],
  ['hana', 'veselá'],
  ['jakub', 'horák'],
  ['tereza', 'němcová'],
  ['david', 'marek'],
];
const CITIES: readonly (readonly [string, string])[] = [
  ['Praha', '120 00'],
  ['Brno', '602 00'],
  ['Ostrava', '702 00'],
  ['Plzeň', '301 00'],
  ['Olomouc', '779 00'],
];
const STREETS: readonly string[] = ['Vinohradská', 'Masarykova', 'Nádražní', 'Husova', 'Palackého', 'Komenského'];
const COMPANIES: readonly string[] = ['Kavárna U Zeleného stromu s.r.o.', 'Bistro Na Růžku s.r.o.', 'Hotel Šumava a.s.'];

/** Strips diacritics for e-mail addresses (jana.novakova@example.cz). */
function ascii(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

function address(seed: number, index: number, salt: number): PosAddress {
  const random = createRandom(hash32(seed, SALT_CLIENT, index, salt));
  const [city, zip] = random.pick(CITIES);
  return { city, street: random.pick(STREETS), buildingNumber: String(random.int(1, 2400)), ZIP: zip, country: 'CZ' };
}

/** A dozen deterministic clients so client get has something to find before any import. */
export function createSeedClients(seed: number): PosClient[] {
  const clients: PosClient[] = [];
  for (let index = 0; index < SEED_CLIENT_COUNT; index++) {
    const random = createRandom(hash32(seed, SALT_CLIENT, index));
    const [first, last] = PEOPLE[index % PEOPLE.length] ?? ['jan', 'novák'];
    const email = `${ascii(first)}.${ascii(last)}${index >= PEOPLE.length ? index : ''}@example.cz`;
    const tin = String(10_000_000 + (hash32(seed, SALT_CLIENT, index, 7) % 89_999_999));
    const hasCompany = index % 3 === 1;
    clients.push({
      _id: hex24(seed, SALT_CLIENT, index),
      externalId: `KLI-${String(index + 1).padStart(4, '0')}`,
      clientCardIdentifier: toEan13(`2${String(hash32(seed, SALT_CLIENT, index, 3) % 100_000_000_000).padStart(11, '0')}`),
      email,
      // Some clients have no phone: optional fields are absent, not empty.
      ...(index % 4 === 3 ? {} : { phone: `+420 ${random.int(601, 799)} ${random.int(100, 999)} ${random.int(100, 999)}` }),
      address: address(seed, index, 1),
      ...(hasCompany
        ? {
            company: {
              address: address(seed, index, 2),
              name: COMPANIES[index % COMPANIES.length] ?? 'Firma s.r.o.',
              TIN: tin,
              VATID: `CZ${tin}`,
            },
          }
        : {}),
      clientPoints: random.int(0, 900),
      ...(index % 2 === 0 ? { dateOfBirth: `19${random.int(55, 99)}-0${random.int(1, 9)}-1${random.int(0, 9)}` } : {}),
      reverseChargeEU: false,
      ...(index % 5 === 0 ? { note: 'Stálý zákazník, preferuje fakturu e-mailem' } : {}),
    });
  }
  return clients;
}

/** Lookup fields of client get (interface 4.3). */
export interface ClientQuery {
  readonly _id?: string;
  readonly externalId?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly clientCardIdentifier?: string;
  readonly company?: { readonly TIN?: string; readonly VATID?: string };
}

function samePhone(a: string, b: string): boolean {
  return a.replace(/\s+/g, '') === b.replace(/\s+/g, '');
}

/**
 * The interface does not say how several lookup fields combine; the sandbox requires every given field
 * to match (AND). E-mails compare case-insensitively, phones ignoring spaces.
 */
export function clientMatches(client: PosClient, query: ClientQuery): boolean {
  if (query._id !== undefined && client._id !== query._id) return false;
  if (query.externalId !== undefined && client.externalId !== query.externalId) return false;
  if (query.clientCardIdentifier !== undefined && client.clientCardIdentifier !== query.clientCardIdentifier) return false;
  if (query.email !== undefined && client.email?.toLowerCase() !== query.email.toLowerCase()) return false;
  if (query.phone !== undefined && (client.phone === undefined || !samePhone(client.phone, query.phone))) return false;
  if (query.company?.TIN !== undefined && client.company?.TIN !== query.company.TIN) return false;
  if (query.company?.VATID !== undefined && client.company?.VATID !== query.company.VATID) return false;
  return true;
}
