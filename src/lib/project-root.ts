import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's own folder (where package.json lives): the nearest
 * ancestor of this file that holds a package.json. The same answer whether this
 * runs from src/ (tsx) or from the compiled dist/src/ (`npm start`).
 */
function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('No package.json above the service code');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot();
