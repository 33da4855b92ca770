#!/usr/bin/env node
// Moves source files and rewrites every relative import (and `new URL('…', import.meta.url)`) that names them,
// in src/, test/, bench/ and scripts/. Usage: node scripts/move-modules.mjs old.ts=new.ts [old2.ts=new2.ts …]
// Paths are relative to the repository root. Files are moved with `git mv`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const moves = new Map();
for (const argument of process.argv.slice(2)) {
  const [from, to] = argument.split('=');
  if (!from || !to) throw new Error(`expected old=new, got ${argument}`);
  moves.set(resolve(root, from), resolve(root, to));
}
if (moves.size === 0) {
  console.error('usage: node scripts/move-modules.mjs old.ts=new.ts …');
  process.exit(2);
}

const SOURCE = /\.(ts|mts|mjs|js)$/;
function walk(dir, files = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, files);
    else if (SOURCE.test(name)) files.push(path);
  }
  return files;
}
const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) => (existsSync(join(root, dir)) ? walk(join(root, dir)) : []));

/** The file a specifier names, as a path on disk (a `.js` specifier names its `.ts` source). */
function target(fromDir, specifier) {
  const path = resolve(fromDir, specifier);
  if (existsSync(path)) return { path, swap: undefined };
  for (const [js, ts] of [
    ['.js', '.ts'],
    ['.mjs', '.mts'],
  ]) {
    if (path.endsWith(js) && existsSync(path.slice(0, -js.length) + ts))
      return { path: path.slice(0, -js.length) + ts, swap: [js, ts] };
  }
  return undefined;
}

function specifierFor(fromDir, path, swap) {
  let spec = relative(fromDir, path).split('\\').join('/');
  if (swap) spec = spec.slice(0, -swap[1].length) + swap[0];
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec;
}

const LITERAL = /(['"`])(\.\.?\/[^'"`$]*)\1/g;
let changed = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const oldDir = dirname(file);
  const newDir = dirname(moves.get(file) ?? file);
  const next = text.replace(LITERAL, (whole, quote, specifier) => {
    const found = target(oldDir, specifier);
    if (!found) return whole;
    const trailing = specifier.endsWith('/') ? '/' : '';
    const moved = moves.get(found.path) ?? found.path;
    if (moved === found.path && oldDir === newDir) return whole;
    return `${quote}${specifierFor(newDir, moved, found.swap)}${trailing}${quote}`;
  });
  if (next !== text) {
    writeFileSync(file, next);
    changed += 1;
  }
}
for (const [from, to] of moves) {
  mkdirSync(dirname(to), { recursive: true });
  execFileSync('git', ['mv', from, to], { cwd: root });
}
console.log(`moved ${moves.size} file(s); rewrote imports in ${changed} file(s)`);
