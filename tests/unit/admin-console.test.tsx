// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/lib/api/error.js';
import { LINK_MESSAGE, isSiteLink } from '../../common/links.js';
import { toBody, type AdminField } from '../../src/islands/admin/AdminForm.js';
import { auditTarget, auditVerb, detailRows, type AuditEntryView } from '../../src/pages/admin/_components/audit-words.js';

const send = vi.fn();
vi.mock('../../src/lib/stores/admin.js', () => ({ admin: { send: (...args: unknown[]) => send(...args), upload: vi.fn() } }));
const { default: MenuEditor, rowErrors, toMenus } = await import('../../src/islands/admin/MenuEditor.js');

/**
 * The console's forms in human units: AdminForm's money and percent fields send integer minor units and basis points
 * (common/money.ts does the reading); the menu editor's rows become the `menus` setting; the audit log's words.
 */
describe('AdminForm toBody: money and percent fields', () => {
  const fields: AdminField[] = [
    { name: 'price', label: 'Price ($)', type: 'money', required: true },
    { name: 'valueBps', label: 'Discount (%)', type: 'percent', required: true, min: 1, max: 10_000 },
    { name: 'commissionBps', label: 'Commission (%)', type: 'percent', emptyAs: 'null' },
    { name: 'logoUrl', label: 'Logo', emptyAs: 'empty' },
  ];
  it('sends minor units and basis points, never the typed text or a float', () => {
    expect(toBody(fields, { price: '4.99', valueBps: '15', commissionBps: '12.5', logoUrl: '/l.svg' })).toEqual({
      body: { price: 499, valueBps: 1500, commissionBps: 1250, logoUrl: '/l.svg' },
      errors: {},
    });
    expect(toBody(fields, { price: '€1,000.50', valueBps: '0.01 %', commissionBps: '', logoUrl: '' }, '€').body).toEqual({ price: 100050, valueBps: 1, commissionBps: null, logoUrl: '' });
  });
  it('refuses in words, and sends nothing for a refused field', () => {
    const { body, errors } = toBody(fields, { price: '4.999', valueBps: '0', commissionBps: '-1', logoUrl: '' });
    expect(errors).toEqual({
      price: 'Use at most two decimals, like 4.99',
      valueBps: 'The percentage must be at least 0.01 %',
      commissionBps: 'The percentage cannot be negative',
    });
    expect(body).toEqual({ logoUrl: '' });
    expect(toBody(fields, { price: '', valueBps: ' ', commissionBps: '', logoUrl: 'x' }).errors).toEqual({ price: 'Enter an amount like 4.99', valueBps: 'Enter a percentage like 15' });
  });
});

describe('links an admin may put on the site', () => {
  it.each(['/', '/videos', '/posts/terms?x=1#top', 'https://example.com', 'http://example.com/ab'])('%s is a link', (v) => expect(isSiteLink(v)).toBe(true));
  it.each(['', 'videos', '//evil.example', 'javascript:alert(1)', 'data:text/html,x', 'https://', 'ftp://x', '/a b', '/\\evil', `/${'a'.repeat(500)}`])('%s is refused', (v) => expect(isSiteLink(v)).toBe(false));
});

describe('MenuEditor', () => {
  const initial = [
    { title: 'Home', path: '/', section: 'header', ordering: 0 },
    { title: 'Videos', path: '/videos', section: 'header', ordering: 1 },
    { title: 'Contact', path: '/contact', section: 'footer', ordering: 0 },
  ];
  const reload = vi.fn();
  beforeEach(() => {
    send.mockReset();
    Object.defineProperty(window, 'location', { configurable: true, value: { ...window.location, reload } });
  });
  afterEach(cleanup);

  it('rows → menus, in list order; a row lacking a label or a good address says so', () => {
    expect(rowErrors({ title: ' ', path: 'javascript:x' })).toEqual({ title: 'Enter the text of the link', path: LINK_MESSAGE });
    expect(rowErrors({ title: 'Ok', path: '' })).toEqual({ path: 'Enter where the link goes, like /videos' });
    expect(toMenus({ header: [{ key: 1, title: ' B ', path: '/b', isNewTab: true }, { key: 2, title: 'A', path: '/a', isNewTab: false }], footer: [] })).toEqual([
      { title: 'B', path: '/b', section: 'header', ordering: 0, isNewTab: true },
      { title: 'A', path: '/a', section: 'header', ordering: 1 },
    ]);
  });

  it('adds, moves and removes rows; refuses a bad address beside its row without sending; then saves the list', async () => {
    render(<MenuEditor initial={initial} />);
    const header = screen.getByTestId('menu-editor-header');
    fireEvent.click(screen.getByTestId('menu-editor-add-header'));
    const rows = () => within(header).getAllByTestId('menu-editor-header-row');
    expect(rows()).toHaveLength(3);
    fireEvent.change(within(rows()[2]!).getByLabelText('Label'), { target: { value: 'Deals' } });
    fireEvent.change(within(rows()[2]!).getByLabelText('Address (URL)'), { target: { value: 'javascript:alert(1)' } });
    fireEvent.click(screen.getByTestId('menu-editor-submit'));
    expect(within(rows()[2]!).getByRole('alert').textContent).toBe(LINK_MESSAGE);
    expect(send).not.toHaveBeenCalled();

    fireEvent.change(within(rows()[2]!).getByLabelText('Address (URL)'), { target: { value: '/performers' } });
    fireEvent.click(screen.getByRole('button', { name: 'Move header link 3 up' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove header link 1' }));
    send.mockResolvedValue({});
    fireEvent.click(screen.getByTestId('menu-editor-submit'));
    await waitFor(() => expect(reload).toHaveBeenCalled());
    expect(send).toHaveBeenCalledWith('PUT', '/admin/settings', {
      menus: [
        { title: 'Deals', path: '/performers', section: 'header', ordering: 0 },
        { title: 'Videos', path: '/videos', section: 'header', ordering: 1 },
        { title: 'Contact', path: '/contact', section: 'footer', ordering: 0 },
      ],
    });
  });

  it('puts the API\'s message for menus.N next to row N (header rows first, then footer rows)', async () => {
    send.mockRejectedValue(new ApiError(400, { message: 'Invalid', code: 'VALIDATION_FAILED', details: [{ path: 'body.menus.2.path', message: 'Not that one' }] }));
    render(<MenuEditor initial={initial} />);
    fireEvent.click(screen.getByTestId('menu-editor-submit'));
    const footerRow = await screen.findByText('Not that one');
    expect(footerRow.closest('[data-testid="menu-editor-footer-row"]')).not.toBeNull();
    expect(screen.getByTestId('form-error').textContent).toContain('Some links need fixing');
  });
});

describe('the audit log in words', () => {
  const entry = (e: Partial<AuditEntryView>): AuditEntryView => ({ action: 'x', targetType: null, targetId: null, details: {}, target: null, ...e });
  const target = (type: string, o: Partial<NonNullable<AuditEntryView['target']>> = {}) => ({ type, _id: 'id1', name: 'Name', username: null, parentId: null, exists: true, ...o });

  it('says what an action did', () => {
    expect(auditVerb('coupon.create')).toBe('created the coupon');
    expect(auditVerb('user.suspend')).toBe('suspended');
    expect(auditVerb('something_new.happened')).toBe('something new happened');
  });

  it('shows details in site units with labels', () => {
    expect(detailRows(entry({ action: 'package.update', details: { price: 499, durationDays: 30 } }), '€')).toEqual([
      { label: 'Price', value: '€4.99' },
      { label: 'Duration (days)', value: '30' },
    ]);
    expect(detailRows(entry({ action: 'coupon.create', details: { valueBps: 1500, expiresAt: null, status: 'active' } }), '$')).toEqual([
      { label: 'Discount', value: '15 %' },
      { label: 'Expires', value: '—' },
      { label: 'Status', value: 'active' },
    ]);
    expect(detailRows(entry({ action: 'performer.commission', details: { from: null, to: 1250 } }), '$')).toEqual([
      { label: 'Before', value: '—' },
      { label: 'After', value: '12.5 %' },
    ]);
    expect(detailRows(entry({ action: 'settings.update', details: { keys: ['menus', 'maintenanceMode'], values: { menus: [{ title: 'Home', path: '/', section: 'header' }], maintenanceMode: true } } }), '$')).toEqual([
      { label: 'Menus', value: 'Home → / (header)' },
      { label: 'Maintenance mode', value: 'yes' },
    ]);
  });

  it('names and links what it was done to; a deleted target keeps its recorded name, unlinked', () => {
    expect(auditTarget(entry({ target: target('coupon', { name: 'SAVE15' }) }))).toEqual({ label: 'SAVE15', href: '/admin/coupons?q=SAVE15', deleted: false });
    expect(auditTarget(entry({ target: target('coupon', { name: 'GONE', exists: false }) }))).toEqual({ label: 'GONE', href: null, deleted: true });
    expect(auditTarget(entry({ target: target('user', { name: 'Fiona Fan', username: 'fiona' }) }))?.href).toBe('/admin/users?q=fiona');
    expect(auditTarget(entry({ target: target('performer', { name: 'Pia', username: 'pia' }) }))?.href).toBe('/performers/pia');
    expect(auditTarget(entry({ target: target('video', { name: 'Clip' }) }))).toEqual({ label: 'video “Clip”', href: '/videos/id1', deleted: false });
    expect(auditTarget(entry({ target: target('country', { _id: 'FR', name: 'France', exists: false }) }))).toEqual({ label: 'France', href: '/admin/country-blocks', deleted: false });
    expect(auditTarget(entry({ action: 'settings.update', target: target('settings', { _id: null, name: null, exists: false }) }))?.label).toBe('the site settings');
    expect(auditTarget(entry({ action: 'settings.image.upload', target: target('settings', { _id: 'logoUrl', name: null, exists: false }) }))?.label).toBe('the logo');
    expect(auditTarget(entry({}))).toBeNull();
  });
});
