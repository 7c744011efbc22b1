/** Keeps dynalite's expression parses as templates, reused for the same expression, names and value types; idempotent. */
export function parseExpressionsOnce(): void;
