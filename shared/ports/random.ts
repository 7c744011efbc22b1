/** Uniform numbers in [0, 1), e.g. for retry jitter. Injected so tests can fix the draw. */
export type Random = () => number;

export const systemRandom: Random = () => Math.random();
