import type { CreateTableBuilder, Kysely } from 'kysely';

/**
 * The whole product's schema, so that later features only add columns.
 * Portable between SQLite and PostgreSQL: ids are text (time-ordered, see server/db/ids.ts),
 * timestamps are ISO-8601 UTC text (sortable on both engines), flags are 0/1 integers,
 * money is integer minor units, rates are integer basis points.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const id = <N extends string>(t: CreateTableBuilder<N, never>) => t.addColumn('id', 'text', (c) => c.primaryKey());
  const ts = <N extends string, C extends string>(t: CreateTableBuilder<N, C>) =>
    t.addColumn('created_at', 'text', (c) => c.notNull()).addColumn('updated_at', 'text', (c) => c.notNull());

  await ts(
    id(db.schema.createTable('users'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('avatar_path', 'text')
      .addColumn('cover_path', 'text')
      .addColumn('country', 'text')
      .addColumn('bio', 'text'),
  ).execute();
  await db.schema.createIndex('users_email_uq').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_username_uq').on('users').column('username').unique().execute();
  await db.schema.createIndex('users_role_created').on('users').columns(['role', 'created_at']).execute();

  await id(db.schema.createTable('sessions'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('remember', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_token_uq').on('sessions').column('token_hash').unique().execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  // Single-use tokens mailed to users: email verification and password reset.
  await id(db.schema.createTable('auth_tokens'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('auth_tokens_hash_uq').on('auth_tokens').column('token_hash').unique().execute();

  await ts(
    db.schema
      .createTable('performers')
      .addColumn('id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('bio', 'text')
      .addColumn('monthly_price', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('yearly_price', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('commission_bps', 'integer')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('approved', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('featured', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('subscriber_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('video_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('photo_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('gallery_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('product_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('view_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('gender', 'text')
      .addColumn('country', 'text'),
  ).execute();
  await db.schema.createIndex('performers_username_uq').on('performers').column('username').unique().execute();
  await db.schema.createIndex('performers_status_created').on('performers').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('performers_status_popular').on('performers').columns(['status', 'subscriber_count', 'id']).execute();
  await db.schema.createIndex('performers_status_price').on('performers').columns(['status', 'monthly_price', 'id']).execute();
  await db.schema.createIndex('performers_status_name').on('performers').columns(['status', 'display_name']).execute();

  await db.schema
    .createTable('performer_blocked_countries')
    .addColumn('performer_id', 'text', (c) => c.notNull().references('performers.id').onDelete('cascade'))
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('performer_blocked_countries_pk', ['performer_id', 'country_code'])
    .execute();

  await ts(
    id(db.schema.createTable('categories'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('group', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('ordering', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();
  await db.schema.createIndex('categories_group_slug_uq').on('categories').columns(['group', 'slug']).unique().execute();

  // Many-to-many links shared by every kind of content (performer, video, gallery, product, post).
  await db.schema
    .createTable('content_categories')
    .addColumn('category_id', 'text', (c) => c.notNull().references('categories.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('content_categories_pk', ['category_id', 'object_type', 'object_id'])
    .execute();
  await db.schema.createIndex('content_categories_object').on('content_categories').columns(['object_type', 'object_id']).execute();
  await db.schema
    .createTable('content_tags')
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('content_tags_pk', ['tag', 'object_type', 'object_id'])
    .execute();
  await db.schema.createIndex('content_tags_object').on('content_tags').columns(['object_type', 'object_id']).execute();

  // Every stored blob (original uploads and derived variants) with its processing status.
  await ts(
    id(db.schema.createTable('files'))
      .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('parent_id', 'text')
      .addColumn('variant', 'text', (c) => c.notNull().defaultTo('original'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('storage_key', 'text', (c) => c.notNull())
      .addColumn('mime', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('duration', 'real')
      .addColumn('original_name', 'text')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready'))
      .addColumn('error', 'text'),
  ).execute();
  await db.schema.createIndex('files_parent').on('files').columns(['parent_id', 'variant']).execute();
  await db.schema.createIndex('files_owner').on('files').columns(['owner_id', 'created_at']).execute();

  // Background work that must survive a restart (media processing, emails, reconciliation).
  await ts(
    id(db.schema.createTable('jobs'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
      .addColumn('run_at', 'text', (c) => c.notNull())
      .addColumn('locked_at', 'text')
      .addColumn('locked_by', 'text')
      .addColumn('last_error', 'text'),
  ).execute();
  await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();

  const content = (name: string) =>
    id(db.schema.createTable(name))
      .addColumn('performer_id', 'text', (c: any) => c.notNull().references('performers.id').onDelete('cascade'))
      .addColumn('status', 'text', (c: any) => c.notNull().defaultTo('active'))
      .addColumn('like_count', 'integer', (c: any) => c.notNull().defaultTo(0))
      .addColumn('favourite_count', 'integer', (c: any) => c.notNull().defaultTo(0))
      .addColumn('comment_count', 'integer', (c: any) => c.notNull().defaultTo(0))
      .addColumn('view_count', 'integer', (c: any) => c.notNull().defaultTo(0));

  // access: 'free' | 'subscribers' | 'sale' (sale => price > 0 and a purchase opens it).
  await ts(
    content('videos')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('access', 'text', (c) => c.notNull().defaultTo('subscribers'))
      .addColumn('is_sale', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('price', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('file_id', 'text')
      .addColumn('teaser_file_id', 'text')
      .addColumn('thumbnail_file_id', 'text')
      .addColumn('duration', 'real')
      .addColumn('processing_status', 'text', (c) => c.notNull().defaultTo('ready'))
      .addColumn('scheduled_at', 'text')
      .addColumn('published_at', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();
  await db.schema.createIndex('videos_status_published').on('videos').columns(['status', 'published_at', 'id']).execute();
  await db.schema.createIndex('videos_performer_published').on('videos').columns(['performer_id', 'status', 'published_at', 'id']).execute();
  await db.schema.createIndex('videos_status_popular').on('videos').columns(['status', 'view_count', 'id']).execute();
  await db.schema.createIndex('videos_slug').on('videos').column('slug').execute();

  await ts(
    content('galleries')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('access', 'text', (c) => c.notNull().defaultTo('subscribers'))
      .addColumn('is_sale', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('price', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cover_photo_id', 'text')
      .addColumn('photo_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('published_at', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();
  await db.schema.createIndex('galleries_status_published').on('galleries').columns(['status', 'published_at', 'id']).execute();
  await db.schema.createIndex('galleries_performer_published').on('galleries').columns(['performer_id', 'status', 'published_at', 'id']).execute();

  await ts(
    content('photos')
      .addColumn('gallery_id', 'text', (c) => c.references('galleries.id').onDelete('cascade'))
      .addColumn('title', 'text')
      .addColumn('file_id', 'text')
      .addColumn('thumbnail_file_id', 'text')
      .addColumn('processing_status', 'text', (c) => c.notNull().defaultTo('ready'))
      .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('published_at', 'text'),
  ).execute();
  await db.schema.createIndex('photos_gallery_position').on('photos').columns(['gallery_id', 'status', 'position', 'id']).execute();
  await db.schema.createIndex('photos_performer_published').on('photos').columns(['performer_id', 'status', 'published_at', 'id']).execute();

  await ts(
    content('products')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('physical'))
      .addColumn('price', 'integer', (c) => c.notNull())
      .addColumn('stock', 'integer')
      .addColumn('image_file_id', 'text')
      .addColumn('digital_file_id', 'text')
      .addColumn('published_at', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();
  await db.schema.createIndex('products_status_published').on('products').columns(['status', 'published_at', 'id']).execute();
  await db.schema.createIndex('products_performer_published').on('products').columns(['performer_id', 'status', 'published_at', 'id']).execute();

  await ts(
    id(db.schema.createTable('posts'))
      .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('performer_id', 'text', (c) => c.references('performers.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('post'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('excerpt', 'text')
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('image_file_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('published'))
      .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('published_at', 'text'),
  ).execute();
  await db.schema.createIndex('posts_slug_uq').on('posts').column('slug').unique().execute();
  await db.schema.createIndex('posts_type_status_published').on('posts').columns(['type', 'status', 'published_at', 'id']).execute();
  await db.schema.createIndex('posts_performer_published').on('posts').columns(['performer_id', 'status', 'published_at', 'id']).execute();

  // Site promo (banners).
  await ts(
    id(db.schema.createTable('banners'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('image_file_id', 'text')
      .addColumn('link', 'text')
      .addColumn('position', 'text', (c) => c.notNull().defaultTo('top'))
      .addColumn('ordering', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();
  await db.schema.createIndex('banners_position_status').on('banners').columns(['position', 'status', 'ordering']).execute();

  await ts(
    id(db.schema.createTable('comments'))
      .addColumn('object_type', 'text', (c) => c.notNull())
      .addColumn('object_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('image_file_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();
  await db.schema.createIndex('comments_object_created').on('comments').columns(['object_id', 'status', 'created_at', 'id']).execute();

  await id(db.schema.createTable('reactions'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reactions_unique').on('reactions').columns(['user_id', 'object_type', 'action', 'object_id']).unique().execute();
  await db.schema.createIndex('reactions_user_list').on('reactions').columns(['user_id', 'object_type', 'action', 'created_at']).execute();

  await ts(
    id(db.schema.createTable('subscription_packages'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('price', 'integer', (c) => c.notNull())
      .addColumn('duration_days', 'integer', (c) => c.notNull())
      .addColumn('ordering', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();

  await ts(
    id(db.schema.createTable('subscriptions'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('performer_id', 'text', (c) => c.notNull().references('performers.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('cancelled_at', 'text')
      .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('gateway', 'text')
      .addColumn('gateway_subscription_id', 'text')
      .addColumn('last_payment_id', 'text'),
  ).execute();
  await db.schema.createIndex('subscriptions_user_performer').on('subscriptions').columns(['user_id', 'performer_id']).unique().execute();
  await db.schema.createIndex('subscriptions_performer_status').on('subscriptions').columns(['performer_id', 'status', 'expires_at']).execute();

  // One row per checkout; status moves pending -> success | failed | cancelled, then refunded | chargeback.
  await ts(
    id(db.schema.createTable('payments'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('performer_id', 'text', (c) => c.references('performers.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('gateway', 'text', (c) => c.notNull())
      .addColumn('gateway_ref', 'text')
      .addColumn('target_id', 'text')
      .addColumn('original_price', 'integer', (c) => c.notNull())
      .addColumn('discount', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('coupon_id', 'text')
      .addColumn('shipping_address', 'text')
      .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('paid_at', 'text'),
  ).execute();
  await db.schema.createIndex('payments_user_created').on('payments').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('payments_status_created').on('payments').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('payments_gateway_ref_uq').on('payments').columns(['gateway', 'gateway_ref']).unique().execute();

  await id(db.schema.createTable('payment_items'))
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text')
    .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('unit_price', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_items_payment').on('payment_items').column('payment_id').execute();

  // Gateway events seen, for idempotency: the unique key makes a replay a no-op.
  await db.schema
    .createTable('webhook_events')
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_events_pk', ['gateway', 'event_id'])
    .execute();

  // What a user may open because they paid for it (videos, galleries, digital products).
  await db.schema
    .createTable('entitlements')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('entitlements_pk', ['user_id', 'object_type', 'object_id'])
    .execute();

  await ts(
    id(db.schema.createTable('orders'))
      .addColumn('order_number', 'text', (c) => c.notNull())
      .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
      .addColumn('buyer_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('performer_id', 'text', (c) => c.notNull().references('performers.id'))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('delivery_status', 'text', (c) => c.notNull().defaultTo('created'))
      .addColumn('shipping_address', 'text')
      .addColumn('tracking_code', 'text')
      .addColumn('total_price', 'integer', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('orders_number_uq').on('orders').column('order_number').unique().execute();
  await db.schema.createIndex('orders_buyer_created').on('orders').columns(['buyer_id', 'created_at']).execute();
  await db.schema.createIndex('orders_performer_created').on('orders').columns(['performer_id', 'created_at']).execute();

  await id(db.schema.createTable('order_items'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price', 'integer', (c) => c.notNull())
    .addColumn('total_price', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_items_order').on('order_items').column('order_id').execute();

  await ts(
    id(db.schema.createTable('coupons'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('value_bps', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('max_uses', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('used_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();
  await db.schema.createIndex('coupons_code_uq').on('coupons').column('code').unique().execute();

  await id(db.schema.createTable('earnings'))
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('performer_id', 'text', (c) => c.notNull().references('performers.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('gross', 'integer', (c) => c.notNull())
    .addColumn('commission', 'integer', (c) => c.notNull())
    .addColumn('net', 'integer', (c) => c.notNull())
    .addColumn('commission_bps', 'integer', (c) => c.notNull())
    .addColumn('is_paid', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_at', 'text')
    .addColumn('payout_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('earnings_performer_created').on('earnings').columns(['performer_id', 'created_at']).execute();
  await db.schema.createIndex('earnings_payment_performer_uq').on('earnings').columns(['payment_id', 'performer_id']).unique().execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('group', 'text', (c) => c.notNull().defaultTo('general'))
    .addColumn('public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('country_blocks')
    .addColumn('country_code', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await id(db.schema.createTable('contacts'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await id(db.schema.createTable('notifications'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('read_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_user_read').on('notifications').columns(['user_id', 'read_at', 'created_at']).execute();

  await id(db.schema.createTable('audit_log'))
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').column('created_at').execute();
}

const tables = [
  'audit_log', 'notifications', 'contacts', 'country_blocks', 'settings', 'earnings', 'coupons', 'order_items', 'orders',
  'entitlements', 'webhook_events', 'payment_items', 'payments', 'subscriptions', 'subscription_packages', 'reactions',
  'comments', 'banners', 'posts', 'products', 'photos', 'galleries', 'videos', 'jobs', 'files', 'content_tags',
  'content_categories', 'categories', 'performer_blocked_countries', 'performers', 'auth_tokens', 'sessions', 'users',
];

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of tables) await db.schema.dropTable(table).ifExists().execute();
}
