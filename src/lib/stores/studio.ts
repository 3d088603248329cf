import { map, type MapStore } from 'nanostores';
import type { ProductItem } from '../../../common/schemas/catalogue.js';
import type { ListResult } from '../../../common/schemas/http.js';
import { countOf } from '../../../common/plural.js';
import type { PayoutBalance, PayoutDetailsChanges, PayoutDetailsView, PayoutRequest, Promotion, PromotionInput } from '../../../common/schemas/money.js';
import type {
  GalleryChanges, PostChanges, ProductChanges, StudioGallery, StudioPost, StudioProduct, StudioProfile, StudioVideo, VideoChanges,
} from '../../../common/schemas/studio.js';
import { ApiError, errorMessage } from '../api/error.js';
import { studioApi } from '../api/studio.js';
import { upload } from '../api/upload.js';
import { toast } from './toast.js';

/**
 * The performer studio's server state: one store per island instance (each `create…Studio` call makes its own,
 * seeded with the page's first render), so two studio islands on one page never share or overwrite a list, and
 * nothing is kept at module level (islands also render on the server, once per request, for different performers).
 * An island holds its store for its lifetime (`useState(() => createVideoStudio(initial))`), reads it with
 * `useStore(studio.store)` and changes it only through the functions next to it.
 *
 * None of the changes is optimistic: the list changes when the server has answered. Failures of a list action
 * (delete, retry, create from a small form) are toasts; failures of an upload or an edit are shown in their form
 * (`upload.error` / `upload.fieldErrors`, or the `SaveResult` the editor gets back), with the server's field errors.
 */

/** An upload form's state: progress 0..1 while sending (1 stays after success: "Uploaded"), null when idle. */
export interface UploadState {
  progress: number | null;
  error: string | null;
  fieldErrors: Record<string, string>;
}

export interface StudioListState<T> {
  items: T[];
  total: number;
  /** A create (a small form, no file) is in flight. */
  creating: boolean;
  upload: UploadState;
}

/** What an inline edit came to: the saved item, or the message and field errors to show in the editor. */
export type SaveResult<T> = { ok: true; item: T } | { ok: false; message: string; fieldErrors: Record<string, string> };

export const SAVED = 'Saved';
export const SAVE_ERROR = 'Could not save the changes, please try again';
export const UPLOAD_ERROR = 'Upload failed, please try again';
export const DELETE_ERROR = 'Could not delete';
/** How often a processing video's state is asked for. */
export const POLL_MS = 1500;

/**
 * Runs `tick` every `POLL_MS` until the answered function is called; `tick` asks `stopped()` after each answer it
 * waited for, so that an answer arriving after the stop changes nothing.
 */
function everyPoll(tick: (stopped: () => boolean) => Promise<void>): () => void {
  let stopped = false;
  const timer = setInterval(() => void tick(() => stopped), POLL_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

const idleUpload = (): UploadState => ({ progress: null, error: null, fieldErrors: {} });
const fieldErrorsOf = (err: unknown) => (err instanceof ApiError ? err.fieldErrors() : {});

interface Initial<T> {
  items: T[];
  total: number;
}

/** The list mechanics every kind shares: seeding, replacing one item, removing one, the upload form's state. */
function studioList<T extends { _id: string }>(initial: Initial<T>) {
  const store = map<StudioListState<T>>({ items: initial.items, total: initial.total, creating: false, upload: idleUpload() });
  const setItems = (items: T[], totalDelta = 0) => store.set({ ...store.get(), items, total: store.get().total + totalDelta });
  const setUpload = (change: Partial<UploadState>) => store.setKey('upload', { ...store.get().upload, ...change });
  const replace = (id: string, apply: (current: T) => T) => setItems(store.get().items.map((x) => (x._id === id ? apply(x) : x)));

  return {
    store,
    setItems,
    setUpload,
    prepend(item: T) {
      setItems([item, ...store.get().items], 1);
    },
    replace,
    /** Sends an edit; on success the item in the list becomes `apply(current, answer)` and 'Saved' shows. */
    async save<R>(id: string, send: () => Promise<R>, apply: (current: T, answer: R) => T): Promise<SaveResult<R>> {
      try {
        const answer = await send();
        replace(id, (current) => apply(current, answer));
        toast.success(SAVED);
        return { ok: true, item: answer };
      } catch (err) {
        return { ok: false, message: errorMessage(err, SAVE_ERROR), fieldErrors: fieldErrorsOf(err) };
      }
    },
    /** Deletes on the server, then from the list; a failure is a toast and the item stays. */
    async remove(id: string, send: () => Promise<void>, failure: string): Promise<boolean> {
      try {
        await send();
        setItems(store.get().items.filter((x) => x._id !== id), -1);
        return true;
      } catch (err) {
        toast.error(errorMessage(err, failure));
        return false;
      }
    },
    /** Form-side checks that failed before anything was sent. */
    invalid(fieldErrors: Record<string, string>, error: string | null = null) {
      setUpload({ error, fieldErrors });
    },
    /** Sends a multipart form with progress; failures land in `upload` (progress back to null). */
    async upload<R>(path: string, form: FormData, failure: string, method: 'POST' | 'PUT' = 'POST'): Promise<R | null> {
      store.setKey('upload', { progress: 0, error: null, fieldErrors: {} });
      try {
        return await upload<R>(path, form, { method, onProgress: (fraction) => setUpload({ progress: fraction }) });
      } catch (err) {
        setUpload({ progress: null, error: errorMessage(err, failure), fieldErrors: fieldErrorsOf(err) });
        return null;
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Videos

export const VIDEO_UPLOADED = 'Video uploaded, processing has started';

export function createVideoStudio(initial: Initial<StudioVideo>) {
  const list = studioList(initial);
  return {
    store: list.store,
    invalid: list.invalid,
    /** `form` is the upload's multipart body (file, fields, optional teaser and thumbnail). */
    async uploadVideo(form: FormData): Promise<StudioVideo | null> {
      const created = await list.upload<StudioVideo>('/performer/assets/videos/upload', form, UPLOAD_ERROR);
      if (!created) return null;
      list.prepend(created);
      toast.success(VIDEO_UPLOADED);
      return created;
    },
    update: (id: string, changes: VideoChanges) => list.save(id, () => studioApi.updateVideo(id, changes), (_, answer) => answer),
    remove: (id: string) => list.remove(id, () => studioApi.deleteVideo(id), 'Could not delete the video'),
    /** Starts a failed video's processing again; the list shows the answer, a failure is a toast. */
    async retry(id: string): Promise<boolean> {
      try {
        const video = await studioApi.retryVideo(id);
        list.replace(id, () => video);
        return true;
      } catch (err) {
        toast.error(errorMessage(err, 'Could not retry'));
        return false;
      }
    },
    /**
     * Asks every `POLL_MS` for the processing state of `ids` and puts it on the items, until the answered
     * function is called (the island calls it when the set of processing videos changes or it unmounts).
     * A failed ask is tried again at the next tick.
     */
    followProcessing(ids: string[]): () => void {
      if (ids.length === 0) return () => {};
      return everyPoll(async (stopped) => {
        for (const id of ids) {
          try {
            const state = await studioApi.videoProcessing(id);
            if (stopped()) return;
            list.replace(id, (v) => ({
              ...v,
              processingStatus: state.processingStatus,
              processingError: state.processingError,
              duration: state.duration,
              thumbnailUrl: state.thumbnailUrl,
              teaserUrl: state.teaserUrl,
            }));
          } catch {
            // try again at the next tick
          }
        }
      });
    },
  };
}
export type VideoStudio = ReturnType<typeof createVideoStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Galleries and their photos

export const GALLERY_CREATED = 'Gallery created';

export function createGalleryStudio(initial: Initial<StudioGallery>) {
  const list = studioList(initial);
  return {
    store: list.store,
    invalid: list.invalid,
    async create(body: Record<string, unknown>): Promise<StudioGallery | null> {
      try {
        const gallery = await studioApi.createGallery(body);
        list.prepend(gallery);
        toast.success(GALLERY_CREATED);
        return gallery;
      } catch (err) {
        toast.error(errorMessage(err, 'Could not create the gallery'));
        return null;
      }
    },
    /** Uploads pictures into one gallery; its photo count rises by the number the server kept. */
    async uploadPhotos(galleryId: string, files: File[]): Promise<boolean> {
      const form = new FormData();
      form.append('galleryId', galleryId);
      for (const f of files) form.append('file', f);
      const res = await list.upload<{ items: unknown[] }>('/performer/assets/photos/upload', form, UPLOAD_ERROR);
      if (!res) return false;
      list.replace(galleryId, (g) => ({ ...g, photoCount: g.photoCount + res.items.length }));
      toast.success(`${countOf(res.items.length, 'photo')} uploaded, processing`);
      return true;
    },
    update: (id: string, changes: GalleryChanges) => list.save(id, () => studioApi.updateGallery(id, changes), (_, answer) => answer),
    remove: (id: string) => list.remove(id, () => studioApi.deleteGallery(id), DELETE_ERROR),
  };
}
export type GalleryStudio = ReturnType<typeof createGalleryStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Products

export const PRODUCT_CREATED = 'Product created';
/** The studio lists up to this many products; after a create the list is read again. */
export const PRODUCT_LIST_LIMIT = 50;

export function createProductStudio(initial: Initial<ProductItem>) {
  const list = studioList(initial);
  return {
    store: list.store,
    invalid: list.invalid,
    /**
     * Creates a product from its multipart form (picture and digital file with it), then reads the list again:
     * the create answers the studio's view of the product, the list shows the catalogue's.
     */
    async create(form: FormData): Promise<boolean> {
      const created = await list.upload<StudioProduct>('/performer/assets/products', form, 'Could not create the product');
      if (!created) return false;
      try {
        const fresh: ListResult<ProductItem> = await studioApi.products({ limit: PRODUCT_LIST_LIMIT });
        list.store.set({ ...list.store.get(), items: fresh.items, total: fresh.total });
      } catch (err) {
        list.setUpload({ progress: null, error: errorMessage(err, 'Could not create the product') });
        return false;
      }
      toast.success(PRODUCT_CREATED);
      return true;
    },
    update: (id: string, changes: ProductChanges) =>
      list.save(id, () => studioApi.updateProduct(id, changes), (x, u) => ({
        ...x,
        name: u.name,
        description: u.description,
        price: u.price,
        stock: u.stock,
        tags: u.tags,
        status: u.status as ProductItem['status'],
      })),
    remove: (id: string) => list.remove(id, () => studioApi.deleteProduct(id), DELETE_ERROR),
  };
}
export type ProductStudio = ReturnType<typeof createProductStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Posts

export const POST_SAVED = 'Post saved';
export const POST_MEDIA_ADDED = 'Added, processing';

export function createPostStudio(initial: Initial<StudioPost>) {
  const list = studioList(initial);
  const path = (id: string) => `/performer/assets/posts/${encodeURIComponent(id)}`;
  return {
    store: list.store,
    invalid: list.invalid,
    /**
     * Writes a post: fields as JSON, or a multipart form with its pictures or video (sent with progress, failures
     * in `upload`). The new post goes first in the list.
     */
    async create(body: Record<string, unknown> | FormData): Promise<StudioPost | null> {
      if (body instanceof FormData) {
        const post = await list.upload<StudioPost>('/performer/assets/posts', body, 'Could not save the post');
        if (!post) return null;
        list.prepend(post);
        toast.success(POST_SAVED);
        return post;
      }
      list.store.setKey('creating', true);
      try {
        const post = await studioApi.createPost(body);
        list.prepend(post);
        toast.success(POST_SAVED);
        return post;
      } catch (err) {
        toast.error(errorMessage(err, 'Could not save the post'));
        return null;
      } finally {
        list.store.setKey('creating', false);
      }
    },
    update: (id: string, changes: PostChanges) => list.save(id, () => studioApi.updatePost(id, changes), (_, answer) => answer),
    /** Takes one picture or the video off a post. */
    removeMedia: (id: string, mediaId: string) => list.save(id, () => studioApi.updatePost(id, { removeMedia: [mediaId] }), (_, answer) => answer),
    /** Adds pictures (or a video, replacing the old one) after the post's others. */
    async addMedia(id: string, files: File[], field: 'file' | 'video'): Promise<boolean> {
      const form = new FormData();
      for (const f of files) form.append(field, f);
      const post = await list.upload<StudioPost>(path(id), form, UPLOAD_ERROR, 'PUT');
      if (!post) return false;
      list.replace(id, () => post);
      toast.success(POST_MEDIA_ADDED);
      return true;
    },
    remove: (id: string) => list.remove(id, () => studioApi.deletePost(id), DELETE_ERROR),
    /**
     * Asks every `POLL_MS` for the studio's list and takes the fresh state of `ids` (posts whose media are being
     * processed), until the answered function is called. A failed ask is tried again at the next tick.
     */
    followProcessing(ids: string[]): () => void {
      if (ids.length === 0) return () => {};
      return everyPoll(async (stopped) => {
        try {
          const fresh = await studioApi.posts({ limit: 50 });
          if (stopped()) return;
          for (const post of fresh.items) if (ids.includes(post._id)) list.replace(post._id, () => post);
        } catch {
          // try again at the next tick
        }
      });
    },
  };
}
export type PostStudio = ReturnType<typeof createPostStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Profile (bio, subscription prices, blocked countries)

export const PROFILE_SAVED = 'Profile updated';

export interface ProfileState {
  profile: StudioProfile;
  saving: boolean;
  errors: Record<string, string>;
}

export function createProfileStudio(initial: StudioProfile) {
  const store: MapStore<ProfileState> = map<ProfileState>({ profile: initial, saving: false, errors: {} });
  return {
    store,
    invalid(errors: Record<string, string>) {
      store.setKey('errors', errors);
    },
    async save(body: Partial<Pick<StudioProfile, 'bio' | 'monthlyPrice' | 'yearlyPrice' | 'trialDays' | 'bundle3Bps' | 'bundle6Bps' | 'bundle12Bps' | 'blockedCountries'>>): Promise<boolean> {
      store.set({ ...store.get(), saving: true, errors: {} });
      try {
        const saved = await studioApi.updateProfile(body);
        store.set({ profile: saved, saving: false, errors: {} });
        toast.success(PROFILE_SAVED);
        return true;
      } catch (err) {
        store.set({ ...store.get(), saving: false, errors: fieldErrorsOf(err) });
        toast.error(errorMessage(err, 'Could not save the profile'));
        return false;
      }
    },
  };
}
export type ProfileStudio = ReturnType<typeof createProfileStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Payouts (balance, payout details, requests)

export const PAYOUT_DETAILS_SAVED = 'Payout details saved';
export const PAYOUT_REQUESTED = 'Payout requested';

export interface PayoutState {
  balance: PayoutBalance;
  details: PayoutDetailsView | null;
  /** The performer's payouts, newest first. */
  payouts: PayoutRequest[];
  savingDetails: boolean;
  detailErrors: Record<string, string>;
  requesting: boolean;
}

export function createPayoutStudio(initial: { balance: PayoutBalance; details: PayoutDetailsView | null; payouts: PayoutRequest[] }) {
  const store: MapStore<PayoutState> = map<PayoutState>({ ...initial, savingDetails: false, detailErrors: {}, requesting: false });
  /** The balance after a change; if it cannot be read now the old figures stay until the next page load. */
  const refreshBalance = async () => {
    try {
      store.setKey('balance', await studioApi.payoutBalance());
    } catch {
      // keep the figures shown
    }
  };
  return {
    store,
    invalid(errors: Record<string, string>) {
      store.setKey('detailErrors', errors);
    },
    /** Saves the payout details; the form shows the server's field errors when they are refused. */
    async saveDetails(body: PayoutDetailsChanges): Promise<boolean> {
      store.set({ ...store.get(), savingDetails: true, detailErrors: {} });
      try {
        const details = await studioApi.savePayoutDetails(body);
        store.set({ ...store.get(), details, savingDetails: false });
        toast.success(PAYOUT_DETAILS_SAVED);
        await refreshBalance();
        return true;
      } catch (err) {
        const detailErrors = fieldErrorsOf(err);
        store.set({ ...store.get(), savingDetails: false, detailErrors });
        // A refused field says so beside it; anything else (a network failure) is a toast.
        if (Object.keys(detailErrors).length === 0) toast.error(errorMessage(err, 'Could not save the payout details'));
        return false;
      }
    },
    /** Requests the whole available balance; the new payout goes first in the list. */
    async request(): Promise<PayoutRequest | null> {
      if (store.get().requesting) return null;
      store.setKey('requesting', true);
      try {
        const payout = await studioApi.requestPayout();
        store.set({ ...store.get(), payouts: [payout, ...store.get().payouts], requesting: false });
        toast.success(PAYOUT_REQUESTED);
        await refreshBalance();
        return payout;
      } catch (err) {
        store.setKey('requesting', false);
        toast.error(errorMessage(err, 'Could not request the payout'));
        await refreshBalance();
        return null;
      }
    },
  };
}
export type PayoutStudio = ReturnType<typeof createPayoutStudio>;

// ---------------------------------------------------------------------------------------------------------------
// Promotions for new subscribers (server/payments/README.md, "Offers")

export const PROMOTION_CREATED = 'Promotion created';
export const PROMOTION_ENDED = 'Promotion ended';

export interface PromotionsState {
  items: Promotion[];
  saving: boolean;
  /** The promotion being ended. */
  ending: string | null;
  errors: Record<string, string>;
}

export function createPromotionStudio(initial: Promotion[]) {
  const store: MapStore<PromotionsState> = map<PromotionsState>({ items: initial, saving: false, ending: null, errors: {} });
  return {
    store,
    invalid(errors: Record<string, string>) {
      store.setKey('errors', errors);
    },
    async create(body: PromotionInput): Promise<boolean> {
      store.set({ ...store.get(), saving: true, errors: {} });
      try {
        const created = await studioApi.createPromotion(body);
        store.set({ ...store.get(), items: [created, ...store.get().items], saving: false, errors: {} });
        toast.success(PROMOTION_CREATED);
        return true;
      } catch (err) {
        store.set({ ...store.get(), saving: false, errors: fieldErrorsOf(err) });
        toast.error(errorMessage(err, 'Could not create the promotion'));
        return false;
      }
    },
    async end(id: string): Promise<boolean> {
      store.setKey('ending', id);
      try {
        const ended = await studioApi.endPromotion(id);
        store.set({ ...store.get(), items: store.get().items.map((p) => (p._id === id ? ended : p)), ending: null });
        toast.success(PROMOTION_ENDED);
        return true;
      } catch (err) {
        store.setKey('ending', null);
        toast.error(errorMessage(err, 'Could not end the promotion'));
        return false;
      }
    },
  };
}
export type PromotionStudio = ReturnType<typeof createPromotionStudio>;
