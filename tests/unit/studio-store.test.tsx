// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProductItem } from '../../common/schemas/catalogue.js';
import type { StudioGallery, StudioPost, StudioProfile, StudioVideo } from '../../common/schemas/studio.js';
import { NETWORK_ERROR_MESSAGE } from '../../src/lib/api/error.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import {
  createGalleryStudio,
  createPostStudio,
  createProductStudio,
  createProfileStudio,
  createVideoStudio,
  POLL_MS,
  SAVED,
  VIDEO_UPLOADED,
} from '../../src/lib/stores/studio.js';
import { toasts } from '../../src/lib/stores/toast.js';
import StudioGalleries from '../../src/islands/studio/StudioGalleries.js';
import StudioVideos from '../../src/islands/studio/StudioVideos.js';
import StudioProfileForm from '../../src/islands/studio/StudioProfile.js';
import StudioPromotions from '../../src/islands/studio/StudioPromotions.js';
import { flush, reply, stubFetch, stubXhr } from './client-helpers.js';

const toastTexts = () => toasts.get().map((t) => [t.type, t.message]);

function video(id: string, over: Partial<StudioVideo> = {}): StudioVideo {
  return {
    _id: id, title: `Clip ${id}`, slug: id, description: null, visibility: 'subscribers', price: 0, tags: [], categoryIds: [], status: 'active', processingStatus: 'ready',
    processingError: null, duration: 3, thumbnailUrl: null, posterUrl: null, teaserUrl: null, scheduledAt: null, publishedAt: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}
const gallery = (id: string, photoCount = 0): StudioGallery => ({
  _id: id, title: `Gallery ${id}`, slug: id, description: null, visibility: 'free', price: 0, tags: [], categoryIds: [], status: 'active', photoCount, coverPhotoId: null,
  publishedAt: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});
const product = (id: string, over: Partial<ProductItem> = {}): ProductItem => ({
  _id: id, slug: id, name: `Product ${id}`, description: null, performerId: 'perf', performer: null, type: 'physical', price: 1500, stock: 3, image: null, locked: false,
  tags: [], status: 'active', publishedAt: null, createdAt: '2026-01-01T00:00:00.000Z', stats: { views: 0, likes: 0, favourites: 0, comments: 0 } as ProductItem['stats'],
  ...over,
});
const post = (id: string): StudioPost => ({
  _id: id, title: `Post ${id}`, slug: id, excerpt: null, content: '', status: 'published', visibility: 'free', price: 0, media: [], imageUrl: null, imageStatus: 'none',
  publishedAt: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});
const validation = (path: string, message: string) => ({ message: 'Validation failed', code: 'VALIDATION_FAILED', details: [{ path, message }] });

beforeEach(() => {
  resetAll();
  setNavigator(vi.fn());
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  setNavigator();
});

describe('video studio store', () => {
  it('uploads with progress, then puts the video first, counts it and says so', async () => {
    const created = video('v2', { processingStatus: 'processing' });
    const seen: Array<number | null> = [];
    const studio = createVideoStudio({ items: [video('v1')], total: 1 });
    studio.store.listen((s) => {
      if (seen.at(-1) !== s.upload.progress) seen.push(s.upload.progress);
    });
    const { calls } = stubXhr({
      'POST /api/performer/assets/videos/upload': (_call, progress) => {
        progress(50, 100);
        return { status: 201, body: created };
      },
    });
    const form = new FormData();
    form.append('title', 'New');
    form.append('file', new File(['x'], 'clip.mp4', { type: 'video/mp4' }));
    expect(await studio.uploadVideo(form)).toEqual(created);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.withCredentials).toBe(true);
    expect((calls[0]!.body as FormData).get('title')).toBe('New');
    expect(seen).toEqual([0, 0.5, 1]);
    expect(studio.store.get()).toMatchObject({ total: 2, upload: { progress: 1, error: null, fieldErrors: {} } });
    expect(studio.store.get().items.map((v) => v._id)).toEqual(['v2', 'v1']);
    expect(toastTexts()).toEqual([['success', VIDEO_UPLOADED]]);
  });

  it('a refused upload shows the server message and field errors, the bar goes away and the list stays', async () => {
    const studio = createVideoStudio({ items: [video('v1')], total: 1 });
    stubXhr({ 'POST /api/performer/assets/videos/upload': { status: 400, body: validation('body.title', 'Title cannot be empty') } });
    expect(await studio.uploadVideo(new FormData())).toBeNull();
    expect(studio.store.get()).toMatchObject({ total: 1, upload: { progress: null, error: 'Validation failed', fieldErrors: { title: 'Title cannot be empty' } } });
    expect(studio.store.get().items).toHaveLength(1);
    expect(toastTexts()).toEqual([]);

    stubXhr({ 'POST /api/performer/assets/videos/upload': { network: true } });
    await studio.uploadVideo(new FormData());
    expect(studio.store.get().upload).toEqual({ progress: null, error: NETWORK_ERROR_MESSAGE, fieldErrors: {} });
  });

  it('an edit replaces the item and says Saved; a refused edit answers the field errors and changes nothing', async () => {
    const studio = createVideoStudio({ items: [video('v1'), video('v2')], total: 2 });
    const { calls } = stubFetch({
      'PUT /api/performer/assets/videos/v1': (c) =>
        (c.body as { title?: string }).title === ''
          ? reply(400, validation('body.title', 'Title cannot be empty'))
          : reply(200, { ...video('v1'), ...(c.body as object) }),
    });
    expect(await studio.update('v1', { title: '' })).toEqual({ ok: false, message: 'Validation failed', fieldErrors: { title: 'Title cannot be empty' } });
    expect(studio.store.get().items[0]!.title).toBe('Clip v1');
    expect(toastTexts()).toEqual([]);
    const result = await studio.update('v1', { title: 'Renamed' });
    expect(result).toMatchObject({ ok: true, item: { _id: 'v1', title: 'Renamed' } });
    expect(calls.map((c) => c.body)).toEqual([{ title: '' }, { title: 'Renamed' }]);
    expect(studio.store.get().items.map((v) => v.title)).toEqual(['Renamed', 'Clip v2']);
    expect(toastTexts()).toEqual([['success', SAVED]]);
  });

  it('delete removes the item once the server agreed; a failure is a toast and the item stays', async () => {
    const studio = createVideoStudio({ items: [video('v1'), video('v2')], total: 7 });
    stubFetch({ 'DELETE /api/performer/assets/videos/v1': reply(403, { message: 'Not your video', code: 'FORBIDDEN' }) });
    expect(await studio.remove('v1')).toBe(false);
    expect(studio.store.get()).toMatchObject({ total: 7 });
    expect(studio.store.get().items).toHaveLength(2);
    expect(toastTexts()).toEqual([['error', 'Not your video']]);
    stubFetch({ 'DELETE /api/performer/assets/videos/v1': reply(204) });
    expect(await studio.remove('v1')).toBe(true);
    expect(studio.store.get().total).toBe(6);
    expect(studio.store.get().items.map((v) => v._id)).toEqual(['v2']);
  });

  it('retry shows the answer; a failure is a toast', async () => {
    const studio = createVideoStudio({ items: [video('v1', { processingStatus: 'failed', processingError: 'bad file' })], total: 1 });
    stubFetch({ 'POST /api/performer/assets/videos/v1/retry': reply(500, 'oops') });
    expect(await studio.retry('v1')).toBe(false);
    expect(toastTexts()).toEqual([['error', 'Could not retry']]);
    expect(studio.store.get().items[0]!.processingStatus).toBe('failed');
    stubFetch({ 'POST /api/performer/assets/videos/v1/retry': reply(200, video('v1', { processingStatus: 'processing' })) });
    expect(await studio.retry('v1')).toBe(true);
    expect(studio.store.get().items[0]).toMatchObject({ processingStatus: 'processing', processingError: null });
  });

  it('follows processing every POLL_MS until stopped, and a failed ask is tried again', async () => {
    vi.useFakeTimers();
    const studio = createVideoStudio({ items: [video('v1', { processingStatus: 'processing', duration: null }), video('v2')], total: 2 });
    let answers = 0;
    const { calls } = stubFetch({
      'GET /api/performer/assets/videos/v1/processing': () => {
        answers += 1;
        if (answers === 1) return reply(503, { message: 'busy', code: 'UNAVAILABLE' });
        return reply(200, { _id: 'v1', processingStatus: 'ready', processingError: null, attempts: 1, maxAttempts: 3, nextAttemptAt: null, duration: 12, thumbnailUrl: '/t.webp', teaserUrl: null });
      },
    });
    const stop = studio.followProcessing(['v1']);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(calls).toHaveLength(1);
    expect(studio.store.get().items[0]!.processingStatus).toBe('processing');
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(studio.store.get().items[0]).toMatchObject({ processingStatus: 'ready', duration: 12, thumbnailUrl: '/t.webp' });
    expect(studio.store.get().items[1]).toEqual(video('v2'));
    stop();
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(calls).toHaveLength(2);
  });

  it('two stores (two islands on one page) keep their own lists and upload state', async () => {
    const a = createVideoStudio({ items: [video('v1')], total: 1 });
    const b = createVideoStudio({ items: [video('v1')], total: 1 });
    stubXhr({ 'POST /api/performer/assets/videos/upload': { status: 201, body: video('v9') } });
    await a.uploadVideo(new FormData());
    stubFetch({ 'DELETE /api/performer/assets/videos/v1': reply(204) });
    await b.remove('v1');
    expect(a.store.get().items.map((v) => v._id)).toEqual(['v9', 'v1']);
    expect(b.store.get()).toMatchObject({ items: [], total: 0, upload: { progress: null } });
  });
});

describe('gallery studio store', () => {
  it('creates a gallery first in the list; a refusal is a toast', async () => {
    const studio = createGalleryStudio({ items: [gallery('g1')], total: 1 });
    const { calls } = stubFetch({ 'POST /api/performer/assets/galleries': (c) => reply(201, { ...gallery('g2'), ...(c.body as object) }) });
    const made = await studio.create({ title: 'Beach', visibility: 'free' });
    expect(made).toMatchObject({ _id: 'g2', title: 'Beach' });
    expect(calls[0]!.body).toEqual({ title: 'Beach', visibility: 'free' });
    expect(studio.store.get().items.map((g) => g._id)).toEqual(['g2', 'g1']);
    expect(toastTexts()).toEqual([['success', 'Gallery created']]);
    stubFetch({ 'POST /api/performer/assets/galleries': reply(400, validation('body.title', 'Required')) });
    expect(await studio.create({})).toBeNull();
    expect(studio.store.get().items).toHaveLength(2);
    expect(toastTexts()[1]).toEqual(['error', 'Validation failed']);
  });

  it('uploads photos into one gallery and raises its count by what the server kept', async () => {
    const studio = createGalleryStudio({ items: [gallery('g1', 2), gallery('g2', 5)], total: 2 });
    const { calls } = stubXhr({ 'POST /api/performer/assets/photos/upload': { status: 201, body: { items: [{}, {}, {}] } } });
    const files = [new File(['a'], 'a.jpg', { type: 'image/jpeg' }), new File(['b'], 'b.jpg', { type: 'image/jpeg' })];
    expect(await studio.uploadPhotos('g2', files)).toBe(true);
    const sent = calls[0]!.body as FormData;
    expect(sent.get('galleryId')).toBe('g2');
    expect(sent.getAll('file')).toHaveLength(2);
    expect(studio.store.get().items.map((g) => g.photoCount)).toEqual([2, 8]);
    expect(toastTexts()).toEqual([['success', '3 photos uploaded, processing']]);

    stubXhr({ 'POST /api/performer/assets/photos/upload': { status: 413, body: { message: 'Too large', code: 'PAYLOAD_TOO_LARGE' } } });
    expect(await studio.uploadPhotos('g1', files)).toBe(false);
    expect(studio.store.get().upload).toMatchObject({ progress: null, error: 'Too large' });
    expect(studio.store.get().items.map((g) => g.photoCount)).toEqual([2, 8]);
  });
});

describe('product studio store', () => {
  it('creates from the multipart form, then reads the list again (50 items)', async () => {
    const studio = createProductStudio({ items: [product('p1')], total: 1 });
    const xhr = stubXhr({ 'POST /api/performer/assets/products': { status: 201, body: { _id: 'p2' } } });
    const { calls } = stubFetch({ 'GET /api/performer/assets/products/search': reply(200, { items: [product('p2'), product('p1')], total: 2 }) });
    const form = new FormData();
    form.append('name', 'Mug');
    expect(await studio.create(form)).toBe(true);
    expect((xhr.calls[0]!.body as FormData).get('name')).toBe('Mug');
    expect(calls[0]!.url).toBe('/api/performer/assets/products/search?limit=50');
    expect(studio.store.get()).toMatchObject({ total: 2, upload: { progress: 1, error: null } });
    expect(studio.store.get().items.map((p) => p._id)).toEqual(['p2', 'p1']);
    expect(toastTexts()).toEqual([['success', 'Product created']]);
  });

  it('a refused create shows the message in the form and reads nothing', async () => {
    const studio = createProductStudio({ items: [product('p1')], total: 1 });
    stubXhr({ 'POST /api/performer/assets/products': { status: 500, body: 'x' } });
    const { calls } = stubFetch({});
    expect(await studio.create(new FormData())).toBe(false);
    expect(calls).toHaveLength(0);
    expect(studio.store.get().upload).toMatchObject({ progress: null, error: 'Could not create the product' });
  });

  it('an edit keeps the catalogue fields and takes the changed ones from the answer', async () => {
    const studio = createProductStudio({ items: [product('p1', { image: '/img.webp' })], total: 1 });
    stubFetch({ 'PUT /api/performer/assets/products/p1': (c) => reply(200, { _id: 'p1', name: 'Product p1', description: null, price: 1999, stock: 7, tags: [], status: 'active', ...(c.body as object) }) });
    await studio.update('p1', { price: 1999, stock: 7 });
    expect(studio.store.get().items[0]).toMatchObject({ price: 1999, stock: 7, image: '/img.webp', performerId: 'perf' });
  });
});

describe('post studio store', () => {
  it('is "creating" while the post is sent, then puts it first; a failure is a toast', async () => {
    const studio = createPostStudio({ items: [post('po1')], total: 1 });
    stubFetch({
      'POST /api/performer/assets/posts': () => {
        expect(studio.store.get().creating).toBe(true);
        return reply(201, post('po2'));
      },
    });
    expect(await studio.create({ title: 'Hello' })).toMatchObject({ _id: 'po2' });
    expect(studio.store.get()).toMatchObject({ creating: false, total: 2 });
    expect(studio.store.get().items.map((p) => p._id)).toEqual(['po2', 'po1']);
    expect(toastTexts()).toEqual([['success', 'Post saved']]);
    stubFetch({ 'POST /api/performer/assets/posts': reply(500, 'x') });
    expect(await studio.create({})).toBeNull();
    expect(studio.store.get().creating).toBe(false);
    expect(toastTexts()[1]).toEqual(['error', 'Could not save the post']);
  });
});

describe('profile studio store', () => {
  const profile: StudioProfile = { _id: 'perf', username: 'ada', name: 'Ada', bio: null, monthlyPrice: 999, yearlyPrice: 9999, trialDays: 0, bundle3Bps: 0, bundle6Bps: 0, bundle12Bps: 0, blockedCountries: [] };

  it('saves and shows the answer; a refusal keeps the profile, shows field errors and a toast', async () => {
    const studio = createProfileStudio(profile);
    stubFetch({ 'PUT /api/performer/profile': reply(400, validation('body.blockedCountries', 'Unknown country XX')) });
    expect(await studio.save({ bio: 'Hi', monthlyPrice: 999, yearlyPrice: 9999, blockedCountries: ['XX'] })).toBe(false);
    expect(studio.store.get()).toEqual({ profile, saving: false, errors: { blockedCountries: 'Unknown country XX' } });
    expect(toastTexts()).toEqual([['error', 'Validation failed']]);
    const { calls } = stubFetch({
      'PUT /api/performer/profile': (c) => {
        expect(studio.store.get()).toMatchObject({ saving: true, errors: {} });
        return reply(200, { ...profile, ...(c.body as object) });
      },
    });
    expect(await studio.save({ bio: 'Hi', monthlyPrice: 500, yearlyPrice: 5000, blockedCountries: ['US'] })).toBe(true);
    expect(calls[0]!.body).toEqual({ bio: 'Hi', monthlyPrice: 500, yearlyPrice: 5000, blockedCountries: ['US'] });
    expect(studio.store.get()).toEqual({ profile: { ...profile, bio: 'Hi', monthlyPrice: 500, yearlyPrice: 5000, blockedCountries: ['US'] }, saving: false, errors: {} });
    expect(toastTexts()[1]).toEqual(['success', 'Profile updated']);
  });
});

describe('offers in the studio', () => {
  const profile: StudioProfile = { _id: 'perf', username: 'ada', name: 'Ada', bio: null, monthlyPrice: 999, yearlyPrice: 9999, trialDays: 0, bundle3Bps: 0, bundle6Bps: 0, bundle12Bps: 0, blockedCountries: [] };

  it('StudioProfile sends trial days and bundle discounts as basis points; a bad percent is refused before sending', async () => {
    const { calls } = stubFetch({ 'PUT /api/performer/profile': (c) => reply(200, { ...profile, ...(c.body as object) }) });
    render(<StudioProfileForm initial={profile} currencySymbol="$" />);
    fireEvent.change(screen.getByTestId('bundle-6'), { target: { value: '95' } });
    fireEvent.submit(screen.getByTestId('studio-profile-form'));
    await waitFor(() => expect(screen.getByText(/at most 90/)).toBeTruthy());
    expect(calls).toEqual([]);
    fireEvent.change(screen.getByTestId('trial-days'), { target: { value: '7' } });
    fireEvent.change(screen.getByTestId('bundle-3'), { target: { value: '10' } });
    fireEvent.change(screen.getByTestId('bundle-6'), { target: { value: '' } });
    fireEvent.change(screen.getByTestId('bundle-12'), { target: { value: '12.5' } });
    fireEvent.submit(screen.getByTestId('studio-profile-form'));
    await waitFor(() => expect(calls.length).toBe(1));
    expect(calls[0]!.body).toMatchObject({ trialDays: 7, bundle3Bps: 1000, bundle6Bps: 0, bundle12Bps: 1250 });
  });

  it('StudioPromotions creates a promotion (percent → basis points, no limit when empty) and ends one', async () => {
    const made = { _id: 'pr1', valueBps: 2000, startsAt: '2026-06-01T10:00:00.000Z', endsAt: '2026-06-30T10:00:00.000Z', maxUses: null, usedCount: 0, state: 'running' as const, createdAt: '2026-06-01T10:00:00.000Z' };
    const { calls } = stubFetch({
      'POST /api/performer/promotions': reply(201, made),
      'POST /api/performer/promotions/pr1/end': reply(200, { ...made, state: 'ended' }),
    });
    render(<StudioPromotions initial={[]} />);
    expect(screen.getByTestId('promotion-empty')).toBeTruthy();
    fireEvent.change(screen.getByTestId('promotion-percent'), { target: { value: '20' } });
    fireEvent.change(screen.getByTestId('promotion-starts'), { target: { value: '2026-06-01T10:00' } });
    fireEvent.change(screen.getByTestId('promotion-ends'), { target: { value: '2026-06-30T10:00' } });
    fireEvent.submit(screen.getByTestId('promotion-form'));
    await waitFor(() => expect(screen.getByTestId('promotion-item')).toBeTruthy());
    expect(calls[0]!.body).toMatchObject({ valueBps: 2000, maxUses: null, startsAt: new Date('2026-06-01T10:00').toISOString() });
    expect(screen.getByTestId('promotion-state').textContent).toBe('running');
    fireEvent.click(screen.getByTestId('promotion-end'));
    await waitFor(() => expect(screen.getByTestId('promotion-state').textContent).toBe('ended'));
    expect(screen.queryByTestId('promotion-end')).toBeNull();
    expect(toastTexts()).toEqual([['success', 'Promotion created'], ['success', 'Promotion ended']]);
  });
});

describe('studio islands on their stores', () => {
  it('StudioGalleries: the photo form shows the bar, then the gallery\'s new count', async () => {
    let report: ((loaded: number, total: number) => void) | null = null;
    let answer: (() => void) | null = null;
    const { calls } = stubXhr({
      'POST /api/performer/assets/photos/upload': (_c, progress) => {
        report = progress;
        return new Promise((resolve) => {
          answer = () => resolve({ status: 201, body: { items: [{}] } });
        });
      },
    });
    render(<StudioGalleries initial={{ items: [gallery('g1', 4)], total: 1 }} currencySymbol="$" />);
    // jsdom's FormData does not see files set from a test, so the gallery form (which reads `input.files`) is the one driven here.
    const input = screen.getByLabelText('Pictures') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['x'], 'a.jpg', { type: 'image/jpeg' })] } });
    fireEvent.submit(screen.getByTestId('photo-upload-form'));
    await waitFor(() => expect(report).not.toBeNull());
    report!(25, 100);
    await waitFor(() => expect(screen.getByTestId('upload-percent').textContent).toBe('Uploading… 25%'));
    answer!();
    await waitFor(() => expect(screen.getByTestId('studio-gallery').textContent).toContain('5'));
    expect(screen.getByTestId('upload-percent').textContent).toBe('Uploaded');
    expect((calls[0]!.body as FormData).get('galleryId')).toBe('g1');
    expect(toastTexts()).toEqual([['success', '1 photo uploaded, processing']]);
  });

  it('StudioVideos: a form without a file sends nothing and says so', async () => {
    const { calls } = stubXhr({});
    render(<StudioVideos initial={{ items: [], total: 0 }} currencySymbol="$" />);
    fireEvent.submit(screen.getByTestId('video-upload-form'));
    expect(await screen.findByText('Choose a video file')).toBeTruthy();
    await flush();
    expect(calls).toHaveLength(0);
  });

  it('StudioGalleries: a failed photo upload shows the server message in the form', async () => {
    stubXhr({ 'POST /api/performer/assets/photos/upload': { status: 415, body: { message: 'Not a picture', code: 'UNSUPPORTED_MEDIA_TYPE' } } });
    render(<StudioGalleries initial={{ items: [gallery('g1')], total: 1 }} currencySymbol="$" />);
    const input = screen.getByLabelText('Pictures') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['x'], 'a.txt', { type: 'text/plain' })] } });
    fireEvent.submit(screen.getByTestId('photo-upload-form'));
    expect((await screen.findByRole('alert')).textContent).toBe('Not a picture');
    expect(screen.queryByTestId('upload-progress-box')).toBeNull();
  });
});
