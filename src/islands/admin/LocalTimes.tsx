import { useEffect } from 'react';
import { readableTime } from '../../lib/local-time.js';

/**
 * Rewrites every `<time data-local-time>` of the page (written in UTC by the server, _components/LocalTime.astro) in
 * the reader's own time zone and language, once the page has loaded. One island for the whole page rather than one
 * per cell; it renders nothing, so server and browser markup agree.
 */
export default function LocalTimes() {
  useEffect(() => {
    for (const el of document.querySelectorAll<HTMLTimeElement>('time[data-local-time]')) {
      el.textContent = readableTime(el.dateTime);
      el.title = new Date(el.dateTime).toISOString();
      el.dataset.localTime = 'local';
    }
  }, []);
  return null;
}
