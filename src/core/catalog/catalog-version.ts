import type { CatalogSnapshot } from './catalog.js';
import { fingerprintChunks, serializeItems } from './catalog-chunks.js';

/**
 * A catalog version id: `v-<UTC timestamp to the millisecond>-<8 hex of the seed's hash>`, e.g.
 * `v-20261122T100000000Z-1f3a9c2e`. Pure: the same `now` and seed give the same id. Ids sort by time,
 * contain only ETag-safe characters, and differ within one millisecond when the seeds differ (pass a
 * counter, the previous version id, or `fingerprintCatalog` of the content).
 *
 * @example createCatalogVersion(new Date('2026-11-22T10:00:00Z'), 'v-20261122T094500000Z-00c0ffee')
 */
export function createCatalogVersion(now: Date, seed: string | number): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `v-${stamp}-${hashText(String(seed)).slice(-8)}`;
}

/**
 * What identifies a version's content besides its items: hashed before them (`fingerprintChunks`).
 */
export function fingerprintHeaderOf(snapshot: Pick<CatalogSnapshot, 'currency' | 'primaryUnit' | 'units'>): string {
  return JSON.stringify([snapshot.currency, snapshot.primaryUnit, snapshot.units]);
}

/**
 * The content fingerprint of a snapshot: everything but `version` and `generatedAt`. Two syncs that
 * produce the same catalog produce the same fingerprint, so the sync can keep the published version (and
 * its ETag, and the pollers' `304`s) when nothing changed. The sync computes it over the chunks it
 * serializes anyway (`fingerprintChunks`); this serializes the snapshot for it.
 */
export function fingerprintCatalog(snapshot: Omit<CatalogSnapshot, 'version' | 'generatedAt'>): string {
  return fingerprintChunks(fingerprintHeaderOf(snapshot), serializeItems(snapshot.products));
}

/** A 106-bit hex hash of a text (two seeded cyrb53 hashes; not cryptographic). */
export function hashText(text: string): string {
  const hash = createHash();
  hash.update(text);
  return hash.digest();
}

interface Hash {
  update(text: string): void;
  digest(): string;
}

/** Incremental cyrb53 (public domain, bryc) run twice with different seeds. */
function createHash(): Hash {
  let a1 = 0xdeadbeef;
  let b1 = 0x41c6ce57;
  let a2 = 0xdeadbeef ^ 0x9e3779b9;
  let b2 = 0x41c6ce57 ^ 0x85ebca6b;
  return {
    update(text) {
      for (let i = 0; i < text.length; i += 1) {
        const ch = text.charCodeAt(i);
        a1 = Math.imul(a1 ^ ch, 2654435761);
        b1 = Math.imul(b1 ^ ch, 1597334677);
        a2 = Math.imul(a2 ^ ch, 2246822507);
        b2 = Math.imul(b2 ^ ch, 3266489909);
      }
    },
    digest() {
      return finish(a1, b1) + finish(a2, b2);
    },
  };
}

function finish(a: number, b: number): string {
  let h1 = Math.imul(a ^ (a >>> 16), 2246822507);
  h1 ^= Math.imul(b ^ (b >>> 13), 3266489909);
  let h2 = Math.imul(b ^ (b >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(16).padStart(14, '0');
}
