import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Finds imports/requires of the `vscode` module in TypeScript source. */
export function vscodeImports(source: string): string[] {
  const pattern = /(?:import\s[^'"]*from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)['"]vscode['"]/g;
  return source.match(pattern) ?? [];
}

describe('architecture', () => {
  it('detects a vscode import (the check itself can fail)', () => {
    assert.equal(vscodeImports("import * as vscode from 'vscode';").length, 1);
    assert.equal(vscodeImports('const v = require("vscode");').length, 1);
    assert.equal(vscodeImports("import type { Uri } from 'vscode';").length, 1);
    assert.equal(vscodeImports("import { z } from 'zod'; // vscode").length, 0);
  });

  it('src/core never imports vscode', () => {
    const offenders = tsFiles(path.join(root, 'src', 'core')).filter((f) => vscodeImports(fs.readFileSync(f, 'utf8')).length > 0);
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
  });

  it('product code never calls console.log', () => {
    const offenders = tsFiles(path.join(root, 'src')).filter((f) => /\bconsole\.log\s*\(/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
  });
});
