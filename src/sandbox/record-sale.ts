import type { Amount, PosClient, PosEvent, PosMovement, PosReceipt } from './pos-resources.js';
import { createRandom, hash32, round2 } from './prng.js';
import type { SandboxArticle, SandboxUnit } from './sandbox-catalog.js';
import { movementArticle, movementUnit, type SandboxState } from './sandbox-state.js';

const SALT_SALES = 50;
const MAX_LINES = 20;

export interface SaleInput {
  /** Unit code (U1) or localId; default: a unit picked by the sales PRNG. */
  readonly unitCode?: string;
  /** Lines to sell; default: 1-3 random stock items. */
  readonly lines?: readonly { readonly localId: string; readonly count: number }[];
}

export interface SaleLine {
  readonly localId: string;
  readonly name: string;
  readonly count: number;
  readonly measureUnit: string;
  /** Gross unit price of the unit's price list (its action price when it has one). */
  readonly unitPrice: number;
  readonly total: number;
}

export interface SaleResult {
  readonly receiptNumber: string;
  /** Receipt localId; movements carry it as `warehouseOperation.receipt._id`. */
  readonly receiptId: string;
  readonly createdAt: string;
  readonly unit: { readonly localId: string; readonly code: string; readonly name: string };
  readonly lines: readonly SaleLine[];
  readonly movementIds: readonly string[];
  /** The receipt as sent in the sale webhook's `data`. */
  readonly receipt: PosReceipt;
  /** Which form of the sale event this sale sends (interface part 6); sales alternate. */
  readonly eventForm: 'with-unit' | 'without-unit';
  readonly clientId?: string;
}

export interface RecordedSale {
  readonly result: SaleResult;
  /** Webhook events to deliver in this order: the sale, then the client-points change when there is a client. */
  readonly events: readonly PosEvent[];
}

/** A sale request that names an unknown unit or article, or a count that is not positive. */
export class SaleInputError extends Error {
  override readonly name = 'SaleInputError';
}

export interface SaleRecorder {
  record(input?: SaleInput): RecordedSale;
}

function amountOf(lines: readonly { gross: number; vatRate: number }[]): Amount {
  let gross = 0;
  let net = 0;
  for (const line of lines) {
    gross += line.gross;
    net += round2(line.gross / (1 + line.vatRate / 100));
  }
  return { amount: round2(net), VAT: round2(gross - net), amountVAT: round2(gross) };
}

/**
 * Records sales on the sandbox state: stock goes down, movements appear, and the webhook events of the
 * sale are returned for the caller to deliver. Random choices come from a PRNG seeded by the sandbox
 * seed, so the n-th random sale of a fresh sandbox is the same on every run.
 */
export function createSaleRecorder(state: SandboxState): SaleRecorder {
  const { catalog } = state;
  const random = createRandom(hash32(catalog.seed, SALT_SALES));

  function pickUnit(unitCode: string | undefined): SandboxUnit {
    if (unitCode === undefined) return random.pick(catalog.units);
    const unit = catalog.findUnit(unitCode);
    if (unit === undefined) throw new SaleInputError(`Unknown unit "${unitCode}"`);
    return unit;
  }

  function randomLines(): { article: SandboxArticle; count: number }[] {
    const wanted = random.int(1, 3);
    const lines: { article: SandboxArticle; count: number }[] = [];
    for (let attempt = 0; attempt < 100 && lines.length < wanted; attempt++) {
      const article = state.article(random.int(0, catalog.articleCount - 1));
      if (article.isStockItem === false || article.isSalesItem === false) continue;
      if (lines.some((line) => line.article.index === article.index)) continue;
      lines.push({ article, count: article.byWeight ? random.int(100, 2_000) / 1000 : random.int(1, 3) });
    }
    return lines;
  }

  function requestedLines(input: NonNullable<SaleInput['lines']>): { article: SandboxArticle; count: number }[] {
    if (input.length === 0 || input.length > MAX_LINES) throw new SaleInputError(`A sale needs 1 to ${MAX_LINES} lines`);
    return input.map((line) => {
      const index = catalog.indexOfLocalId(line.localId);
      if (index === undefined) throw new SaleInputError(`Unknown article "${line.localId}"`);
      if (!Number.isFinite(line.count) || line.count <= 0)
        throw new SaleInputError(`Count of "${line.localId}" must be positive`);
      return { article: state.article(index), count: line.count };
    });
  }

  function pickClient(): PosClient | undefined {
    if (state.clients.length === 0 || !random.chance(1 / 3)) return undefined;
    return random.pick(state.clients);
  }

  return {
    record(input = {}) {
      const unit = pickUnit(input.unitCode);
      const chosen = input.lines === undefined ? randomLines() : requestedLines(input.lines);
      if (chosen.length === 0) throw new SaleInputError('No sellable stock item found');
      const client = pickClient();
      const createdAt = state.now().toISOString();
      const saleNumber = state.nextNumber('sale');
      const receiptNumber = `${unit.code}-${unit.device.label}-${String(state.nextNumber(`receipt:${unit.code}`)).padStart(6, '0')}`;
      const receiptId = state.mintId('receipt');

      const lines: SaleLine[] = chosen.map(({ article, count }) => {
        const price = state.unitPrice(unit.index, article);
        const unitPrice = price.actionPrice ?? price.priceVat;
        return {
          localId: article.localId,
          name: article.name,
          count,
          measureUnit: article.measureUnit,
          unitPrice,
          total: round2(unitPrice * count),
        };
      });
      const total = amountOf(lines.map((line, i) => ({ gross: line.total, vatRate: chosen[i]?.article.vatRate ?? 0 })));

      const stockLines = chosen.filter(({ article }) => article.isStockItem !== false);
      const movements: PosMovement[] = [];
      if (stockLines.length > 0) {
        const operation: PosMovement['warehouseOperation'] = {
          _id: state.mintId('operation'),
          number: `VY-${String(state.nextNumber('operation-issue')).padStart(6, '0')}`,
          currency: 'CZK',
          price: total,
          createdAt,
          type: 2,
          receipt: { _id: receiptId, number: receiptNumber, cashier: { _id: unit.cashier.localId, name: unit.cashier.name } },
        };
        for (const { article, count } of stockLines) {
          state.adjustStock(unit.index, article.index, -Math.round(count * 1000));
          movements.push({
            _id: state.mintId('movement'),
            count: -count,
            unit: movementUnit(unit),
            article: movementArticle(article),
            warehouseOperation: operation,
          });
        }
        state.addMovements(movements);
      }

      const receipt: PosReceipt = {
        number: receiptNumber,
        total,
        localId: receiptId,
        tip: saleNumber % 7 === 0 ? 20 : 0,
        note: saleNumber % 11 === 0 ? 'Zákazník platil QR platbou' : '',
        table: '',
        state: 'open',
        paymentType: 'transfer',
        device: { localId: unit.device.localId, uuid: unit.device.uuid },
        cashier: { localId: unit.cashier.localId },
        ...(client !== undefined ? { client: { localId: client._id } } : {}),
      };
      // Alternate the two documented forms of the sale event: odd sales carry unitId + accountId.
      const eventForm = saleNumber % 2 === 1 ? 'with-unit' : 'without-unit';
      const events: PosEvent[] = [
        {
          timestamp: createdAt,
          event: 'accounting.receipt.sale',
          ...(eventForm === 'with-unit' ? { accountId: catalog.accountId, unitId: unit.localId } : {}),
          data: receipt,
        },
      ];
      if (client !== undefined) events.push(clientPointsEvent(state, client, receipt, createdAt));

      return {
        result: {
          receiptNumber,
          receiptId,
          createdAt,
          unit: { localId: unit.localId, code: unit.code, name: unit.name },
          lines,
          movementIds: movements.map((movement) => movement._id),
          receipt,
          eventForm,
          ...(client !== undefined ? { clientId: client._id } : {}),
        },
        events,
      };
    },
  };
}

/** One point per full 100 CZK; a client with 100+ points spends 100 on every fourth sale. */
function clientPointsEvent(state: SandboxState, client: PosClient, receipt: PosReceipt, timestamp: string): PosEvent {
  const before = client.clientPoints ?? 0;
  const received = Math.floor(receipt.total.amountVAT / 100);
  const spent = before >= 100 && Number(receipt.number.slice(-6)) % 4 === 0 ? 100 : 0;
  const balance = before + received - spent;
  const position = state.clients.indexOf(client);
  if (position >= 0) state.clients[position] = { ...client, clientPoints: balance };
  return {
    timestamp,
    event: 'address-book.client.points',
    accountId: state.catalog.accountId,
    data: {
      received,
      spent,
      balance,
      client: { localId: client._id },
      receipt: { localId: receipt.localId, number: receipt.number },
    },
  };
}
