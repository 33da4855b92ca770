export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string (so a `?key=` never lands in the log). */
  readonly path: string;
  readonly time: string;
  /** HTTP status sent; 0 while no answer was sent (pending, hung or the connection was cut first). */
  status: number;
  /** Fault mode applied to this request, if any. */
  fault?: string;
}

export interface RequestLog {
  /** Records a request when it arrives, so a later call always sees it even if its answer is still pending. */
  add(entry: RecordedRequest): RecordedRequest;
  /** Oldest first. */
  list(): RecordedRequest[];
  clear(): void;
}

/** Bounded ring buffer of recent requests: memory stays flat however long the sandbox runs. */
export function createRequestLog(capacity = 500): RequestLog {
  const entries: RecordedRequest[] = [];
  let next = 0;
  return {
    add(entry) {
      if (entries.length < capacity) entries.push(entry);
      else entries[next] = entry;
      next = (next + 1) % capacity;
      return entry;
    },
    list() {
      if (entries.length < capacity) return [...entries];
      return [...entries.slice(next), ...entries.slice(0, next)];
    },
    clear() {
      entries.length = 0;
      next = 0;
    },
  };
}
