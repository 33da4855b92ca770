import type { z } from 'zod';
import { PosEnvelopeSchema } from './pos-envelope-schema.js';
import { PosRejectedError, PosResponseInvalidError } from './pos-errors.js';
import { formatIssues } from './pos-loose-list.js';
import { type CallPlace, decodeUtf8, type ResponseHandler, readCapped, safeCause } from './pos-responses.js';
import type { PosClientLogger } from './pos-transport.js';

/**
 * The POS's JSON result envelope (interface 2.1) read off a response: size-capped, parsed, `isValid`
 * checked before `data` is validated, warnings and messages logged. And the same envelope found where
 * a document was expected, which is the POS refusing the call.
 */

export interface EnvelopeReading {
  /** Reads, parses and checks a JSON envelope, then validates its `data`. */
  readEnvelope<Schema extends z.ZodType>(dataSchema: Schema): ResponseHandler<z.output<Schema>>;
  /**
   * An export answered with a JSON envelope saying `isValid: false` (where XML or text was expected) is
   * the POS refusing the call: a `PosRejectedError` with its texts, not a document for the parsers.
   */
  envelopeRejection(bytes: Uint8Array, where: CallPlace): PosRejectedError | undefined;
}

export function createEnvelopeReading(options: {
  readonly maxJsonBytes: number;
  readonly redact: (text: string) => string;
  readonly logger: PosClientLogger;
}): EnvelopeReading {
  const { maxJsonBytes, redact, logger } = options;

  function invalidError(
    reason: string,
    context: { method: string; path: string; status?: number; cause?: unknown; issues?: readonly string[] },
  ): PosResponseInvalidError {
    return new PosResponseInvalidError(reason, context);
  }

  return {
    readEnvelope(dataSchema) {
      return async (response, operation) => {
        const where = { method: operation.method, path: operation.path, status: response.statusCode };
        const bytes = await readCapped(response.body, maxJsonBytes, 'fail', () =>
          invalidError(`response larger than ${maxJsonBytes} bytes (POS_MAX_PAGE_MB; a smaller POS_PAGE_SIZE also helps)`, where),
        );
        let json: unknown;
        try {
          json = JSON.parse(decodeUtf8(bytes));
        } catch (error) {
          // The parser's message quotes the body; it stays in `cause`, out of the message.
          throw invalidError(`malformed JSON (${bytes.length} bytes)`, { ...where, cause: safeCause(error, redact) });
        }
        const envelope = PosEnvelopeSchema.safeParse(json);
        if (!envelope.success) {
          throw invalidError('the envelope does not match the interface', { ...where, issues: formatIssues(envelope.error) });
        }
        const { isValid, errors = [], warnings = [], messages = [] } = envelope.data;
        if (isValid === false) {
          throw new PosRejectedError('isValid is false', { ...where, posErrors: errors.map(redact) });
        }
        if (warnings.length > 0) logger.warn({ ...where, warnings: warnings.map(redact) }, 'POS returned warnings');
        if (messages.length > 0) logger.debug({ ...where, messages: messages.map(redact) }, 'POS returned messages');
        const data = dataSchema.safeParse(envelope.data.data);
        if (!data.success) {
          const issues = data.error.issues.map((issue) => {
            const path = ['data', ...issue.path.map(String)].join('.');
            return `${path}: ${issue.message}`;
          });
          throw invalidError('data does not match the interface', { ...where, issues });
        }
        return data.data;
      };
    },

    envelopeRejection(bytes, where) {
      let json: unknown;
      try {
        json = JSON.parse(decodeUtf8(bytes));
      } catch {
        return undefined;
      }
      const envelope = PosEnvelopeSchema.safeParse(json);
      if (!envelope.success || envelope.data.isValid !== false) return undefined;
      return new PosRejectedError('isValid is false', { ...where, posErrors: (envelope.data.errors ?? []).map(redact) });
    },
  };
}
