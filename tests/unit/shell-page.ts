import type { ReactElement } from 'react';
import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { setNavigator } from '../../src/lib/navigation.js';
import { resetAll } from '../../src/lib/stores/reset.js';

/**
 * The islands of a member-shell page (docs/architecture.md), rendered inside the element that names the page's
 * performer or video or the feed's page size (`data-member-performer`, `data-member-video`, `data-member-feed`), as
 * the header's one request reads it.
 */
export function renderOnShellPage(names: { memberPerformer?: string; memberVideo?: string; memberFeed?: string }, islands: ReactElement) {
  const section = document.createElement('section');
  Object.assign(section.dataset, names);
  document.body.append(section);
  return render(islands, { container: section });
}

/** Around each test: fresh stores and a stub navigator before, no page, fetch stub or navigator left after. */
export function isolateShellPageTests(): void {
  beforeEach(() => {
    setNavigator(vi.fn());
    resetAll();
  });
  afterEach(() => {
    cleanup();
    document.body.innerHTML = '';
    vi.unstubAllGlobals();
    setNavigator();
  });
}
