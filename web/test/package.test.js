// The module as a package: its TypeScript declarations type-check a frontend's use of it and name every export,
// and `npm pack` ships the module, its types and its README, and nothing of the page, tests or benchmarks.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as module from '../src/index.js';

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..');

test('the declarations type-check a frontend and name every export', () => {
  const tsc = spawnSync(process.execPath, [join(WEB, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', WEB], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  const declared = [...readFileSync(join(WEB, 'src', 'index.d.ts'), 'utf8').matchAll(/^export declare (?:const|function|class) (\w+)/gm)]
    .map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(module).sort());
});

test('npm pack ships the module, its types and README alone', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const pack = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: WEB, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const files = JSON.parse(pack.stdout)[0].files.map((f) => f.path).sort();
  const sources = ['index.js', 'index.d.ts', 'network.js', 'planes.js', 'rules.js', 'search.js', 'solve.js'].map((f) => `src/${f}`);
  assert.deepEqual(files, ['README.md', 'package.json', ...sources].sort());
});
