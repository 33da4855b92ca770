import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodedChunks } from '../../../src/sandbox/encoded-chunks.js';

describe('sandbox/encoded-chunks', () => {
  it('gives the UTF-8 of the joined texts in chunks that split no character, of at most the size or one long text', () => {
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 60 }), fc.integer({ min: 8, max: 200 }), (texts, size) => {
        const chunks = [...encodedChunks(texts, size)];
        expect(Buffer.concat(chunks).equals(Buffer.from(texts.join(''), 'utf8'))).toBe(true);
        expect(chunks.map((chunk) => chunk.toString('utf8')).join('')).toBe(Buffer.from(texts.join('')).toString('utf8'));
        for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThan(0);
        const longest = Math.max(0, ...texts.map((one) => one.length * 3));
        for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(Math.max(size, longest));
      }),
      { numRuns: 100 },
    );
  });

  it('keeps a text whole in one chunk, so that no character is split between chunks', () => {
    const chunks = [...encodedChunks(['ab', 'čšž', 'x😀y', 'ř'], 8)];
    // 'čšž' may take 9 bytes, more than the 2 left: a chunk of its own; 'x😀y' (up to 12) likewise.
    expect(chunks.map((chunk) => chunk.toString('utf8'))).toEqual(['ab', 'čšž', 'x😀yř']);
  });

  it('writes a lone surrogate as U+FFFD, as Node writes strings to sockets', () => {
    expect(Buffer.concat([...encodedChunks(['a\uD800b'])]).toString('utf8')).toBe('a\uFFFDb');
  });

  it('yields one empty buffer for no text', () => {
    expect([...encodedChunks([])].map((chunk) => chunk.length)).toEqual([0]);
    expect([...encodedChunks(['', ''])].map((chunk) => chunk.length)).toEqual([0]);
  });
});
