/** The `?token=` of the current address ('' outside the browser or when absent), as the pages cut it. */
export function tokenFromUrl(): string {
  if (typeof window === 'undefined') return '';
  return (new URLSearchParams(window.location.search).get('token') ?? '').slice(0, 200);
}
