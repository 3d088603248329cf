import sharp from 'sharp';
import type { Storage } from '../media/storage.js';
import { withLocalFile } from '../media/pipeline/local-file.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';

/**
 * A message's pictures are shown as sent (no previews: only the two participants see them), but never with what the
 * camera wrote into them: EXIF (a phone's GPS position, the device), XMP and IPTC are dropped by writing the picture
 * again in its own format, turned upright first. Videos are kept as they were probed at upload.
 */
export async function cleanAttachments(storage: Storage, files: ReceivedFile[]): Promise<void> {
  for (const f of files) {
    if (f.type.kind !== 'image') continue;
    const animated = f.type.mime === 'image/gif' || f.type.mime === 'image/webp';
    const data = await withLocalFile(storage, f.storageKey, (p) => {
      const image = sharp(p, { animated });
      // Turning upright reads the EXIF orientation; an animation has none worth keeping, and sharp cannot turn one.
      return (animated ? image : image.rotate()).toBuffer({ resolveWithObject: true });
    });
    const { size } = await storage.put(f.storageKey, data.data);
    f.size = size;
    f.width = data.info.width;
    f.height = data.info.pageHeight ?? data.info.height;
  }
}
