/** Adds `return()` (closes the iterator) to abstract-level's iterator classes, as dynalite resolves them; idempotent. */
export function closeLevelIteratorsOnReturn(): void;
