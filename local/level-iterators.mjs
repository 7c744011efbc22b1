// dynalite 4 reads LevelDB through streams over abstract-level iterators, and ends each stream by
// calling `iterator.return()` if there is one; abstract-level 3's iterators have `close()` and no
// `return()`, so no iterator dynalite opens is ever closed. Each stays in the database's set of open
// resources and keeps its native LevelDB iterator, which pins the memtable and table files it saw:
// every Query and Scan leaked one, and the runtime's memory grew with the reads it served (issue 31).
// This gives the iterators the `return()` dynalite expects, closing them. Plain JavaScript: it runs
// in the emulator worker thread (emulator-thread.mjs), where tsx's loader does not reach.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The abstract-level that dynalite's LevelDB binding (classic-level, through `level`) extends, as
 * dynalite itself resolves it, so the prototypes patched are the ones its iterators inherit from.
 */
function abstractLevelOfDynalite() {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  const fromLevel = createRequire(fromDynalite.resolve('level'));
  const fromClassic = createRequire(fromLevel.resolve('classic-level'));
  return fromClassic('abstract-level');
}

/** Adds `return()` (closes the iterator) to abstract-level's iterator classes; idempotent. */
export function closeLevelIteratorsOnReturn() {
  const level = abstractLevelOfDynalite();
  for (const Iterator of [level.AbstractIterator, level.AbstractKeyIterator, level.AbstractValueIterator]) {
    if (typeof Iterator?.prototype.return === 'function') continue;
    Object.defineProperty(Iterator.prototype, 'return', {
      configurable: true,
      writable: true,
      async value() {
        await this.close();
        return { done: true, value: undefined };
      },
    });
  }
}
