/**
 * The port of the group's change stream (docs/scale-out.md), as replication and the catalog service use
 * it; `adapters/group/redis-change-journal.ts` implements it on a Redis stream.
 */

/** One entry of the group's change stream. */
export type JournalEntry =
  | { readonly id: string; readonly kind: 'full' | 'serve'; readonly version: string; readonly source: string }
  | {
      readonly id: string;
      readonly kind: 'stock';
      readonly base: string;
      readonly version: string;
      readonly source: string;
      /** JSON of the change (`StockChangeBody`): its time and the changed products. */
      readonly body: string;
    };

export type AppendResult = { readonly ok: true; readonly id: string } | { readonly ok: false; readonly head: string };

/** The group's ordered log of catalog changes (a Redis stream); see docs/scale-out.md. */
export interface ChangeJournal {
  appendStock(change: {
    readonly base: string;
    readonly version: string;
    readonly source: string;
    readonly body: string;
  }): Promise<AppendResult>;
  /** Entries after `after` (a stream id), waiting up to `blockMs` for one; `[]` when none came. */
  read(after: string, blockMs: number): Promise<JournalEntry[]>;
  /** The version the stream ends on (`undefined`: nothing appended since Redis started empty). */
  head(): Promise<string | undefined>;
  /** The id of the stream's last entry (`0-0` when empty). */
  lastId(): Promise<string>;
  /** How many entries follow `after`, counted up to `max`. */
  countAfter(after: string, max: number): Promise<number>;
  close(): Promise<void>;
}
