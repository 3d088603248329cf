import type { ListResult } from '../../../common/schemas/http.js';
import type {
  ApplyCouponRequest, ApplyCouponResponse, CheckoutResponse, OrderView, PurchaseProductsRequest, PurchaseRequest, SandboxCompleteResponse,
  SandboxOutcome, SubscribeRequest, SubscriptionItem, SubscriptionPackageItem, TipRequest, TransactionItem, UpdateOrderRequest,
} from '../../../common/schemas/money.js';
import { apiFetch } from './transport.js';

/** Money: checkouts answer the provider's page to go to (`redirectUrl`); subscriptions, coupons, orders. */
export const money = {
  subscriptionPackages: () => apiFetch<ListResult<SubscriptionPackageItem>>('/package/subscription/search'),
  subscribe: (body: SubscribeRequest) => apiFetch<CheckoutResponse>('/payment/subscribe', { method: 'POST', body: { ...body } }),
  purchaseVideo: (id: string, body: PurchaseRequest = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-video/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchasePost: (id: string, body: PurchaseRequest = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-post/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchaseMessage: (id: string, body: PurchaseRequest = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-message/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchaseGallery: (id: string, body: PurchaseRequest = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-gallery/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  tip: (body: TipRequest) => apiFetch<CheckoutResponse>('/payment/tip', { method: 'POST', body: { ...body } }),
  purchaseProducts: (body: PurchaseProductsRequest) => apiFetch<CheckoutResponse>('/payment/purchase-products', { method: 'POST', body: { ...body } }),
  applyCoupon: (code: string, body: NonNullable<ApplyCouponRequest> = {}) =>
    apiFetch<ApplyCouponResponse>(`/coupons/${encodeURIComponent(code)}/apply-coupon`, { method: 'POST', body: { ...body } }),
  paymentStatus: (id: string) => apiFetch<TransactionItem>(`/payment/status/${encodeURIComponent(id)}`),
  sandboxComplete: (chargeId: string, outcome: SandboxOutcome) =>
    apiFetch<SandboxCompleteResponse>(`/payment/sandbox/${encodeURIComponent(chargeId)}/complete`, { method: 'POST', body: { outcome } }),
  cancelSubscription: (id: string) => apiFetch<SubscriptionItem>(`/subscriptions/cancel/${encodeURIComponent(id)}`, { method: 'POST', body: {} }),
  updateOrder: (id: string, body: UpdateOrderRequest) => apiFetch<OrderView>(`/orders/${encodeURIComponent(id)}/update`, { method: 'PUT', body: { ...body } }),
};
