import { availabilityTextOf } from './aggregate-offer.js';
import { ALL_UNITS, type Availability, type Offer, type Product } from './catalog.js';

/** One offer as the public JSON feed shows it (SPEC §5). */
export interface OfferView {
  readonly unit: string;
  readonly price?: number;
  readonly salePrice?: number;
  readonly standardPrice?: number;
  readonly stock?: number;
  readonly availability: Availability;
  readonly availabilityText?: string;
}

/** The flat item of one feed view (SPEC §5): top-level money and stock come from the viewed offer. */
export interface ProductView {
  readonly id: string;
  readonly name: string;
  readonly groupId?: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly measureUnit?: string;
  readonly price?: number;
  readonly salePrice?: number;
  readonly standardPrice?: number;
  readonly stock?: number;
  readonly availability: Availability;
  readonly availabilityText?: string;
  readonly link?: string;
  readonly imageLink?: string;
  /** Every unit's offer in the `all` view; the viewed unit's offer alone in a unit view. */
  readonly offers: readonly OfferView[];
}

/** Links are templated outside the core (they depend on configuration); passed in to keep key order. */
export interface ProductLinks {
  readonly link?: string;
  readonly imageLink?: string;
}

/**
 * The public item of `product` in the view of `unit` (a unit code or `all`), with the keys in the
 * documented order and absent values omitted. `undefined` when the product has no offer in that unit.
 *
 * @example viewProduct(product, 'all', { link: 'https://shop/p/a-1' })
 */
export function viewProduct(product: Product, unit: string, links: ProductLinks = {}): ProductView | undefined {
  const offer = unit === ALL_UNITS ? product.aggregate : product.offers.find((candidate) => candidate.unit === unit);
  if (offer === undefined) return undefined;
  const offers = unit === ALL_UNITS ? product.offers.map(viewOffer) : [viewOffer(offer)];
  const text = availabilityTextOf(offer);
  return {
    id: product.id,
    name: product.name,
    ...(product.groupId === undefined ? {} : { groupId: product.groupId }),
    ...(product.ean === undefined ? {} : { ean: product.ean }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    ...(product.measureUnit === undefined ? {} : { measureUnit: product.measureUnit }),
    ...(offer.price === undefined ? {} : { price: offer.price }),
    ...(offer.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer.standardPrice === undefined ? {} : { standardPrice: offer.standardPrice }),
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    ...(text === undefined ? {} : { availabilityText: text }),
    ...(links.link === undefined ? {} : { link: links.link }),
    ...(links.imageLink === undefined ? {} : { imageLink: links.imageLink }),
    offers,
  };
}

/** One offer in its public shape (the label of its availability instead of both labels). */
export function viewOffer(offer: Offer): OfferView {
  const text = availabilityTextOf(offer);
  return {
    unit: offer.unit,
    ...(offer.price === undefined ? {} : { price: offer.price }),
    ...(offer.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer.standardPrice === undefined ? {} : { standardPrice: offer.standardPrice }),
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    ...(text === undefined ? {} : { availabilityText: text }),
  };
}
