import { type CatalogSource, sameHostOtherKey, sameUnits, sourceLabelOf } from '../../core/catalog/catalog-source.js';
import type { CatalogService } from './catalog-service.js';

/** A catalog the store holds that is not served: of another source, until the configured source's first one. */
export interface NotServedCatalog {
  /** Where it came from, for people. */
  readonly source: string;
  readonly version: string;
  readonly products: number;
}

export interface StoredCatalogStart {
  /** The stored catalog that is not served, while no catalog of the configured source is. */
  notServed(): NotServedCatalog | undefined;
  /** Settles once it is decided what is served (at once, unless an unrecorded catalog is compared with the POS). */
  readonly settled: Promise<void>;
}

export interface CatalogStartDeps {
  readonly catalog: Pick<CatalogService, 'current' | 'loadFromStore' | 'storedCatalog' | 'adoptStored'>;
  /** The configured source. */
  readonly source: CatalogSource;
  /** The POS's units (one cheap call): how a catalog of an unrecorded source or an earlier key is recognised. */
  readonly listUnits: () => Promise<readonly { readonly localId: string; readonly code: string }[]>;
  readonly logger: {
    info(meta: object, message: string): void;
    warn(meta: object, message: string): void;
    error(meta: object, message: string): void;
  };
}

const UNRECORDED = 'an unknown source (stored before sources were recorded)';

/**
 * What a start serves from the store (docs/decisions/0007-source-identity-and-start-sync.md): a catalog
 * of the configured source at once; one of another source never (logged once, kept until the configured
 * source's first catalog replaces it). Two cases may be this POS account's after all: a catalog stored
 * before sources were recorded (an upgrade), and one read from the same POS host with another API key (a
 * new key of the account, or another account there). Such a catalog is served once the POS's unit list
 * matches its units, checked in the background beside the start sync. A store that cannot be read is
 * logged and left to the start sync.
 */
export async function openStoredCatalog(deps: CatalogStartDeps): Promise<StoredCatalogStart> {
  const { catalog, source, logger } = deps;
  const start = (notServed: NotServedCatalog | undefined, settled: Promise<void> = Promise.resolve()): StoredCatalogStart => ({
    notServed: () => (catalog.current() === undefined ? notServed : undefined),
    settled,
  });
  let stored: Awaited<ReturnType<typeof catalog.storedCatalog>>;
  try {
    stored = await catalog.storedCatalog();
    if (stored?.own === true) {
      const snapshot = await catalog.loadFromStore();
      if (snapshot !== undefined) {
        logger.info(
          { version: snapshot.version, products: snapshot.products.length, source: source.label },
          'serving the stored catalog while the start sync runs',
        );
      }
      return start(undefined);
    }
  } catch (error) {
    // A broken store must not keep the service down: log, sync afresh, and let /readyz tell.
    logger.error({ err: error }, 'could not load the stored catalog');
    return start(undefined);
  }
  if (stored === undefined) return start(undefined);

  const from = stored.source;
  const notServed = {
    source: from === undefined ? UNRECORDED : sourceLabelOf(from),
    version: stored.version,
    products: stored.items,
  };
  const names = {
    stored: notServed.source,
    storedVersion: stored.version,
    configured: source.label,
    // The labels of one POS read with two keys are alike: the keys' hashes are kept out of sight.
    ...(from !== undefined && sameHostOtherKey(from, source) ? { otherApiKey: true } : {}),
  };
  if (from !== undefined && !sameHostOtherKey(from, source)) {
    logger.warn(
      names,
      'the stored catalog came from another source than the configured one: it is not served (feeds answer 503) until the first sync from the configured source, whose catalog replaces it',
    );
    return start(notServed);
  }
  const { version } = stored;
  const units = stored.meta?.units ?? [];
  const settled = deps
    .listUnits()
    .then(
      async (posUnits) => {
        if (!sameUnits(units, posUnits)) {
          logger.warn(
            names,
            "the stored catalog's units are not the POS's: it is not served (feeds answer 503) until the first sync from the configured source, whose catalog replaces it",
          );
          return;
        }
        const snapshot = await catalog.adoptStored(version, from);
        if (snapshot !== undefined) {
          logger.info(
            { ...names, products: snapshot.products.length },
            "the stored catalog has the POS's units: serving it as the configured source's while the start sync runs",
          );
        }
      },
      (error: unknown) =>
        logger.warn(
          { ...names, err: error },
          'the POS could not be asked for its units, to tell whether the stored catalog is its own: not served until the first sync from the configured source',
        ),
    )
    .catch((error: unknown) => logger.error({ err: error }, 'could not load the stored catalog'));
  return start(notServed, settled);
}
