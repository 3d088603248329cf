import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { badRequest } from '../http/errors.js';
import { receiveMultipart, type FileFieldSpec } from '../media/pipeline/upload.js';
import { formatBytes } from '../media/pipeline/upload.js';
import { POST_MAX_IMAGES } from '../../common/limits.js';
import { parseInput } from '../http/parse-input.js';
import {
  galleryInput, idParams, ownListQuery, photoInput, photoUploadInput, postInput, processingStateSchema, productInput, profileInput,
  studioGallerySchema, studioPhotoSchema, studioPostSchema, studioProductSchema, studioProfileSchema, studioVideoSchema, uploadedPhotosSchema,
  videoInput,
} from '../../common/schemas/studio.js';
import type { Actor, StudioDeps, Uploads } from './deps.js';
import { listOwn } from './own-lists.js';
import { createVideo, deleteVideo, retryVideo, updateVideo, videoProcessingState, videoView } from '../videos/videos.studio.js';
import { createGallery, deleteGallery, galleryView, updateGallery } from '../galleries/galleries.studio.js';
import { deletePhoto, photoViews, updatePhoto, uploadPhotos } from '../photos/photos.studio.js';
import { createProduct, deleteProduct, productView, updateProduct } from '../products/products.studio.js';
import { createPost, deletePost, postView, updatePost } from '../posts/posts.studio.js';
import { profileView, updateProfile } from '../performers/profile.studio.js';
import { createPromotion, endPromotionNow, listPromotions } from '../coupons/promotions.studio.js';
import { promotionBody, promotionSchema } from '../../common/schemas/money.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema };
const uploadErrors = { ...errors, 413: apiErrorSchema };
const tags = ['studio'];

/**
 * Performer studio, write side: uploads and edits of one's own videos, galleries,
 * photos, products and posts, and the performer profile. Uploads are multipart/form-data streamed to
 * storage (server/media/pipeline/upload.ts); processing runs in the job queue (server/jobs/).
 */
export async function studioRoutes(app: ApiApp): Promise<void> {
  const { db, storage, jobs, logger, config, settings } = app.ctx;
  const deps: StudioDeps = { db, storage, jobs, logger, settings };
  const limits = config.pipeline.uploads;
  // Scoped to this plugin; per-request limits are set by receiveMultipart().
  await app.register(multipart, { throwFileSizeLimit: true });

  const videoFiles: Record<string, FileFieldSpec> = {
    file: { accept: 'video', maxBytes: limits.video, label: 'video', prefix: 'private/videos', aliases: ['video'] },
    teaser: { accept: 'video', maxBytes: limits.teaser, label: 'teaser', prefix: 'private/sources' },
    thumbnail: { accept: 'image', maxBytes: limits.image, label: 'thumbnail', prefix: 'private/sources' },
  };
  const photoFiles: Record<string, FileFieldSpec> = {
    file: { accept: 'image', maxBytes: limits.image, label: 'photo', prefix: 'private/photos', maxCount: limits.photosPerRequest, aliases: ['files', 'photos', 'file[]'] },
  };
  const productFiles: Record<string, FileFieldSpec> = {
    image: { accept: 'image', maxBytes: limits.image, label: 'product picture', prefix: 'private/sources' },
    file: { accept: 'digital', maxBytes: limits.digital, label: 'product file', prefix: 'private/products', aliases: ['digitalFile'] },
  };
  const postFiles: Record<string, FileFieldSpec> = {
    file: { accept: 'image', maxBytes: limits.image, label: 'picture', prefix: 'private/posts/originals', maxCount: POST_MAX_IMAGES, aliases: ['files', 'image', 'images', 'file[]'] },
    video: { accept: 'video', maxBytes: limits.video, label: 'video', prefix: 'private/videos' },
  };

  const actorOf = (request: FastifyRequest, ...roles: Array<'performer' | 'admin'>): Actor => {
    const user = requireRole(request, ...roles);
    return { id: user.id, role: user.role };
  };

  /** Multipart (fields and files) or JSON (fields only) into the same shape; files are deleted if the handler fails. */
  async function withForm<T>(
    request: FastifyRequest,
    specs: Record<string, FileFieldSpec>,
    opts: { multipartOnly?: boolean },
    fn: (fields: unknown, uploads: Uploads) => Promise<T>,
  ): Promise<T> {
    if (!request.isMultipart()) {
      if (opts.multipartOnly) throw badRequest('Send the upload as multipart/form-data');
      return fn(request.body ?? {}, {});
    }
    const form = await receiveMultipart(request, storage, specs);
    try {
      return await fn(form.fields, form.files);
    } catch (err) {
      await form.discard();
      throw err;
    }
  }

  const videoUploadDescription =
    `multipart/form-data. Files: "file" (the video, required: ${formatBytes(limits.video)} at most), "teaser" (optional clip, ` +
    `${formatBytes(limits.teaser)}), "thumbnail" (optional picture, ${formatBytes(limits.image)}). Types are sniffed from the bytes ` +
    'and videos probed with ffmpeg: a file that is not what its field expects is 400 UNSUPPORTED_MEDIA (videos: MP4, MOV, 3GP, WebM ' +
    'or MKV; playlists, scripts and other formats are refused) and nothing is kept. The public teaser is at most 8 s and a fifth ' +
    'of the video; a video under 10 s gets none. Fields: title (required), description, visibility free|subscribers|sale ' +
    '(default subscribers), price (integer minor units, required above 0 for sale), tags and categoryIds (repeated fields, JSON ' +
    'array or comma-separated), scheduledAt (ISO-8601; a future date publishes then), status active|inactive|draft. Answers 201 ' +
    'with processingStatus "processing"; poster, thumbnail, teaser and duration follow when the job finishes.';

  // -- own listings -----------------------------------------------------------------------------------------------

  const ownLists = [
    ['/performer/assets/videos/search', 'videos', studioVideoSchema, videoView, 'Your videos in every state (draft, scheduled, processing, failed), newest first'],
    ['/performer/assets/galleries/search', 'galleries', studioGallerySchema, galleryView, 'Your galleries in every state, newest first'],
    ['/performer/assets/posts/search', 'posts', studioPostSchema, postView, 'Your posts in every state, newest first'],
  ] as const;
  for (const [url, table, schema, view, summary] of ownLists) {
    app.get(
      url,
      route({
        access: { roles: ['performer', 'admin'] },
        tags,
        summary,
        querystring: ownListQuery,
        response: { 200: z.object({ items: z.array(schema), total: z.number().int() }), ...errors },
      }),
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return listOwn(db, actorOf(request, 'performer', 'admin'), table, request.query, view as (d: typeof db, id: string) => Promise<z.infer<typeof schema>>);
      },
    );
  }

  // -- videos -----------------------------------------------------------------------------------------------------

  app.post(
    '/performer/assets/videos/upload',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Upload a video (performers): stored at once, processed in the background',
      description: videoUploadDescription,
      consumes: ['multipart/form-data'],
      response: { 201: studioVideoSchema, ...uploadErrors },
    }),
    async (request, reply) => {
      const actor = actorOf(request, 'performer');
      const id = await withForm(request, videoFiles, { multipartOnly: true }, (fields, uploads) =>
        createVideo(deps, actor, parseInput(videoInput, fields), uploads),
      );
      reply.status(201);
      return videoView(db, id);
    },
  );

  app.put(
    '/performer/assets/videos/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Edit one of your videos: title, description, visibility, price, tags, categories, schedule, status',
      params: idParams,
      body: videoInput,
      response: { 200: studioVideoSchema, ...errors },
    }),
    async (request) => updateVideo(deps, actorOf(request, 'performer', 'admin'), request.params.id, request.body),
  );

  app.delete(
    '/performer/assets/videos/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Delete one of your videos and its files (a video somebody bought is only hidden)',
      params: idParams,
      response: { 204: z.null(), ...errors },
    }),
    async (request, reply) => {
      await deleteVideo(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/performer/assets/videos/:id/retry',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Process a video whose processing failed again (409 unless it failed)',
      params: idParams,
      response: { 202: studioVideoSchema, ...errors },
    }),
    async (request, reply) => {
      const video = await retryVideo(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      reply.status(202);
      return video;
    },
  );

  app.get(
    '/performer/assets/videos/:id/processing',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Processing state of one of your videos (for the studio to poll): status, error, attempts',
      params: idParams,
      response: { 200: processingStateSchema, ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return videoProcessingState(deps, actorOf(request, 'performer', 'admin'), request.params.id);
    },
  );

  // -- galleries and photos ---------------------------------------------------------------------------------------

  app.post(
    '/performer/assets/galleries',
    route({ access: { roles: ['performer'] }, tags, summary: 'Create a gallery (then upload photos to it)', body: galleryInput, response: { 201: studioGallerySchema, ...errors } }),
    async (request, reply) => {
      const gallery = await createGallery(deps, actorOf(request, 'performer'), request.body);
      reply.status(201);
      return gallery;
    },
  );

  app.put(
    '/performer/assets/galleries/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Edit one of your galleries (changing between free and locked redoes the public thumbnails)',
      params: idParams,
      body: galleryInput,
      response: { 200: studioGallerySchema, ...errors },
    }),
    async (request) => updateGallery(deps, actorOf(request, 'performer', 'admin'), request.params.id, request.body),
  );

  app.delete(
    '/performer/assets/galleries/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Delete one of your galleries with its photos (a bought gallery is only hidden)',
      params: idParams,
      response: { 204: z.null(), ...errors },
    }),
    async (request, reply) => {
      await deleteGallery(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/performer/assets/photos/upload',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Upload photos to one of your galleries',
      description:
        `multipart/form-data: galleryId (required), title (optional), and 1 to ${limits.photosPerRequest} pictures in "file" ` +
        `(${formatBytes(limits.image)} each; JPEG, PNG, WebP, GIF, AVIF, HEIC or TIFF, sniffed from the bytes). Answers 201 ` +
        'with the photos, processing; their thumbnails follow.',
      consumes: ['multipart/form-data'],
      response: { 201: uploadedPhotosSchema, ...uploadErrors },
    }),
    async (request, reply) => {
      const actor = actorOf(request, 'performer');
      const ids = await withForm(request, photoFiles, { multipartOnly: true }, (fields, uploads) =>
        uploadPhotos(deps, actor, parseInput(photoUploadInput, fields), uploads),
      );
      reply.status(201);
      return { items: await photoViews(db, ids) };
    },
  );

  app.put(
    '/performer/assets/photos/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Edit one of your photos: title, position, status',
      params: idParams,
      body: photoInput,
      response: { 200: studioPhotoSchema, ...errors },
    }),
    async (request) => updatePhoto(deps, actorOf(request, 'performer', 'admin'), request.params.id, request.body),
  );

  app.delete(
    '/performer/assets/photos/:id',
    route({ access: { roles: ['performer', 'admin'] }, tags, summary: 'Delete one of your photos', params: idParams, response: { 204: z.null(), ...errors } }),
    async (request, reply) => {
      await deletePhoto(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      return reply.status(204).send(null);
    },
  );

  // -- products ---------------------------------------------------------------------------------------------------

  const productDescription =
    'JSON, or multipart/form-data with files "image" (picture, optional) and "file" (the download of a digital product, ' +
    `${formatBytes(limits.digital)} at most; required for digital). Fields: name, description, type physical|digital, price ` +
    '(integer minor units, at least 1), stock (physical only), tags, categoryIds, status.';

  app.post(
    '/performer/assets/products',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Create a product: physical with stock, or digital with its file',
      description: productDescription,
      consumes: ['multipart/form-data', 'application/json'],
      response: { 201: studioProductSchema, ...uploadErrors },
    }),
    async (request, reply) => {
      const actor = actorOf(request, 'performer');
      const id = await withForm(request, productFiles, {}, (fields, uploads) => createProduct(deps, actor, parseInput(productInput, fields), uploads));
      reply.status(201);
      return productView(db, id);
    },
  );

  app.put(
    '/performer/assets/products/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Edit one of your products (a new image or file replaces the old one)',
      description: productDescription,
      consumes: ['multipart/form-data', 'application/json'],
      params: idParams,
      response: { 200: studioProductSchema, ...uploadErrors },
    }),
    async (request) => {
      const actor = actorOf(request, 'performer', 'admin');
      const id = await withForm(request, productFiles, {}, (fields, uploads) => updateProduct(deps, actor, request.params.id, parseInput(productInput, fields), uploads));
      return productView(db, id);
    },
  );

  app.delete(
    '/performer/assets/products/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Delete one of your products (one that was ordered is only hidden)',
      params: idParams,
      response: { 204: z.null(), ...errors },
    }),
    async (request, reply) => {
      await deleteProduct(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      return reply.status(204).send(null);
    },
  );

  // -- posts ------------------------------------------------------------------------------------------------------

  const postDescription =
    `JSON, or multipart/form-data with up to ${POST_MAX_IMAGES} pictures in "file" (${formatBytes(limits.image)} each) or one video in ` +
    `"video" (${formatBytes(limits.video)}; MP4, MOV, 3GP, WebM or MKV, probed with ffmpeg), not both. Fields: title, content (plain ` +
    'text: blank lines separate paragraphs; stored as escaped HTML, no markup), excerpt (the teaser everyone sees, also while the ' +
    'post is locked; default: the start of the text), visibility free|subscribers|sale (default free), price (integer minor units, ' +
    'required above 0 for sale), status draft|published|hidden, publishedAt; on edits, removeMedia (media ids; repeated, JSON array ' +
    'or comma-separated), and new files are added after the others (a new video replaces the old one). Media are processed in ' +
    'the background: previews (blurred while the post is locked) follow.';

  app.post(
    '/performer/assets/posts',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Write a post',
      description: postDescription,
      consumes: ['multipart/form-data', 'application/json'],
      response: { 201: studioPostSchema, ...uploadErrors },
    }),
    async (request, reply) => {
      const actor = actorOf(request, 'performer');
      const id = await withForm(request, postFiles, {}, (fields, uploads) => createPost(deps, actor, parseInput(postInput, fields), uploads));
      reply.status(201);
      return postView(db, id);
    },
  );

  app.put(
    '/performer/assets/posts/:id',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'Edit one of your posts',
      description: postDescription,
      consumes: ['multipart/form-data', 'application/json'],
      params: idParams,
      response: { 200: studioPostSchema, ...uploadErrors },
    }),
    async (request) => {
      const actor = actorOf(request, 'performer', 'admin');
      const id = await withForm(request, postFiles, {}, (fields, uploads) => updatePost(deps, actor, request.params.id, parseInput(postInput, fields), uploads));
      return postView(db, id);
    },
  );

  app.delete(
    '/performer/assets/posts/:id',
    route({ access: { roles: ['performer', 'admin'] }, tags, summary: 'Delete one of your posts', params: idParams, response: { 204: z.null(), ...errors } }),
    async (request, reply) => {
      await deletePost(deps, actorOf(request, 'performer', 'admin'), request.params.id);
      return reply.status(204).send(null);
    },
  );

  // -- profile ----------------------------------------------------------------------------------------------------

  app.get(
    '/performer/profile',
    route({ access: { roles: ['performer'] }, tags, summary: 'Your performer profile as the studio edits it', response: { 200: studioProfileSchema, ...errors } }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return profileView(db, actorOf(request, 'performer').id);
    },
  );

  app.put(
    '/performer/profile',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Edit your performer profile: bio, monthly and yearly subscription prices (minor units), blocked countries (ISO codes)',
      body: profileInput,
      response: { 200: studioProfileSchema, ...errors },
    }),
    async (request) => updateProfile(deps, actorOf(request, 'performer'), request.body),
  );

  // -- promotions (server/payments/README.md, "Offers") ------------------------------------------------------------

  app.get(
    '/performer/promotions',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Your promotions for new subscribers, latest first',
      response: { 200: z.object({ items: z.array(promotionSchema) }), ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { items: await listPromotions(db, actorOf(request, 'performer').id) };
    },
  );

  app.post(
    '/performer/promotions',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: "Create a promotion: new subscribers' first period at a discount (basis points) between two times, optionally for at most maxUses of them",
      body: promotionBody,
      response: { 201: promotionSchema, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await createPromotion(db, actorOf(request, 'performer').id, request.body)),
  );

  app.post(
    '/performer/promotions/:id/end',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'End one of your promotions now (checkouts already started keep their price)',
      params: idParams,
      response: { 200: promotionSchema, ...errors },
    }),
    async (request) => endPromotionNow(db, actorOf(request, 'performer').id, request.params.id),
  );
}
