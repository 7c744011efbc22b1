// Content negotiation for the public links people open in a browser: a page for people, JSON for
// everyone else.

/**
 * True when the Accept header ranks text/html above application/json (a browser following the
 * link); API clients, `*\/*` and no header at all get JSON.
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
