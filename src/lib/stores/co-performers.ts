import { map } from 'nanostores';
import type { CoPerformerObjectType } from '../../../common/enums.js';
import type { CoPerformer, CoPerformerRequest } from '../../../common/schemas/consent.js';
import { ApiError, errorMessage } from '../api/error.js';
import { consentApi } from '../api/consent.js';
import { upload } from '../api/upload.js';
import { onRealtime } from './realtime-events.js';
import { toast } from './toast.js';

/**
 * Co-performers in the studio (docs/product.md, Co-performers and consent): one store per section instance, made by
 * the island that shows it. `createCoPerformers` is an item's "People in this" (loaded when the editor opens);
 * `createCoPerformerRequests` the requests other performers made to the signed-in performer, refreshed live when a
 * `co_performer` notification arrives. Nothing is optimistic: the list is the server's answer.
 */

export interface CoPerformersState {
  items: CoPerformer[];
  publishable: boolean;
  loaded: boolean;
  busy: boolean;
  error: string | null;
  fieldErrors: Record<string, string>;
}

const SAVE_ERROR = 'Could not save, please try again';

export function createCoPerformers(objectType: CoPerformerObjectType, objectId: string) {
  const store = map<CoPerformersState>({ items: [], publishable: true, loaded: false, busy: false, error: null, fieldErrors: {} });
  const settle = (list: { items: CoPerformer[]; publishable: boolean }) => store.set({ ...list, loaded: true, busy: false, error: null, fieldErrors: {} });
  const fail = (err: unknown) => {
    store.set({ ...store.get(), busy: false, error: errorMessage(err, SAVE_ERROR), fieldErrors: err instanceof ApiError ? err.fieldErrors() : {} });
    return false;
  };
  async function run(call: () => Promise<{ items: CoPerformer[]; publishable: boolean }>): Promise<boolean> {
    store.setKey('busy', true);
    store.setKey('error', null);
    try {
      settle(await call());
      return true;
    } catch (err) {
      return fail(err);
    }
  }
  return {
    store,
    load: () => run(() => consentApi.list(objectType, objectId)),
    nameSitePerformer: (username: string) => run(() => consentApi.nameSitePerformer(objectType, objectId, username)),
    /** `form`: legalName, releaseForm, idDocument. */
    addOutsidePerson: (form: FormData) => run(() => upload(`${consentApi.itemPath(objectType, objectId)}/outside`, form)),
    remove: (recordId: string) => run(() => consentApi.remove(recordId)),
  };
}

export function createCoPerformerRequests(initial: CoPerformerRequest[]) {
  const store = map<{ items: CoPerformerRequest[]; busy: string | null }>({ items: initial, busy: null });
  const refresh = async () => {
    try {
      store.setKey('items', (await consentApi.requests()).items);
    } catch {
      // the next notification or a reload tries again
    }
  };
  return {
    store,
    async answer(recordId: string, action: 'confirm' | 'decline'): Promise<void> {
      store.setKey('busy', recordId);
      try {
        store.set({ items: (await consentApi.answer(recordId, action)).items, busy: null });
        toast.success(action === 'confirm' ? 'Confirmed' : 'Declined');
      } catch (err) {
        store.setKey('busy', null);
        toast.error(errorMessage(err, SAVE_ERROR));
      }
    },
    /** New requests appear without a reload: the notification of one is the signal to ask again. */
    listen: () =>
      onRealtime('notification/created', ({ notification }) => {
        if (notification.type === 'co_performer') void refresh();
      }),
  };
}
