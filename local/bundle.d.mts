/** The folder of the first package.json above `from` (a file URL). */
export function projectRootOf(from: string): string;

/** Bundles `entries` (name → project-relative source) under `root`/.tmp/`kind`/; each entry's file URL by name. */
export function bundle(root: string, kind: string, entries: Record<string, string>): Promise<{ urls: Record<string, string>; remove(): void }>;
