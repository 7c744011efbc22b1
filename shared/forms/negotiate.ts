// Whether a public form route answers a browser (a page) or a program (JSON).

/**
 * True when the Accept header ranks text/html above application/json (a browser navigating);
 * programs, `*\/*` and no header at all get JSON. The test-recipient link decides the same way.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    return { type, q: Number.isFinite(weight) ? weight : 0 };
  });
  const weightOf = (media: string): number => {
    const family = `${media.split('/')[0]}/*`;
    const match = ranges.find((r) => r.type === media) ?? ranges.find((r) => r.type === family) ?? ranges.find((r) => r.type === '*/*');
    return match?.q ?? 0;
  };
  return weightOf('text/html') > weightOf('application/json');
}
