import { useEffect, useState } from 'react';

/**
 * False on the server and in the browser's first render, true once the island has mounted. An island prints what
 * only the browser knows (localStorage, the reader's clock, time zone and language, a captcha widget) after that:
 * hydration must reproduce the server's HTML exactly, or React throws the page's markup away (error #418).
 */
export function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}
