export async function fetchAllPages(baseUrl, { limit = 100, signal } = {}) {
  const results = [];
  let cursor = null;
  do {
    const url = new URL(baseUrl);
    url.searchParams.set('limit', String(limit));
    if (cursor) url.searchParams.set('cursor', cursor);
    const res = await fetch(url, { headers: { Accept: 'application/json' }, signal });
    if (!res.ok) {
      throw new Error(`GET ${url} failed: ${res.status} ${res.statusText}`);
    }
    const body = await res.json();
    results.push(...(body.data ?? []));
    cursor = body.meta?.next_cursor ?? null;
  } while (cursor && results.length < 10_000);
  return results;
}

const byStatus = (items) =>
  items.reduce((acc, it) => ({ ...acc, [it.status]: (acc[it.status] || 0) + 1 }), {});
