import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from './errors.js';

/** One image per upload request (avatars, covers, site images, banners), at most 5 MB. */
export const IMAGE_UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** Busboy limits of an image upload: one file, a few small fields at most. */
export const imageUploadLimits = { files: 1, fileSize: IMAGE_UPLOAD_MAX_BYTES, fields: 10, fieldSize: 1024, parts: 12, headerPairs: 100 };

export const imageTooLargeMessage = `The image is too large: the limit is ${IMAGE_UPLOAD_MAX_BYTES / 1024 / 1024} MB.`;

/**
 * Reads the single file of a multipart request into memory (bounded by `imageUploadLimits`), with clear
 * 400/413 answers instead of the multipart plugin's terse errors. The route's plugin registers @fastify/multipart.
 */
export async function readSingleImage(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw badRequest('Send the image as multipart/form-data with one file field');
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: imageUploadLimits })) {
      if (part.type !== 'file') continue;
      file = await part.toBuffer();
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, 'PAYLOAD_TOO_LARGE', imageTooLargeMessage);
    if (code === 'FST_FILES_LIMIT') throw badRequest('Send one image only');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw badRequest('Too many form fields: send one image only');
    if (code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_JSON_FIELD_ERROR') throw badRequest('Malformed form field');
    if (err instanceof Error && /multipart|boundary|part terminated/i.test(err.message)) throw badRequest('Malformed multipart/form-data body');
    throw err;
  }
  if (!file?.length) throw badRequest('No image received: send one file in the multipart/form-data body');
  return file;
}
