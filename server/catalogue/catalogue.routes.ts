import type { ApiApp } from '../http/types.js';
import { categoriesRoutes } from '../categories/categories.routes.js';
import { galleriesRoutes } from '../galleries/galleries.routes.js';
import { photosRoutes } from '../photos/photos.routes.js';
import { postsRoutes } from '../posts/posts.routes.js';
import { productsRoutes } from '../products/products.routes.js';
import { videosRoutes } from '../videos/videos.routes.js';

/** The catalogue's read API; `GET /performers/*` lives in server/performers. */
export async function catalogueRoutes(app: ApiApp): Promise<void> {
  for (const routes of [categoriesRoutes, videosRoutes, galleriesRoutes, photosRoutes, productsRoutes, postsRoutes]) {
    await app.register(routes);
  }
}
