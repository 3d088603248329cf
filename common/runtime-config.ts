/**
 * Values the page hands to the browser at runtime (docs/product.md, Browser state), rendered into
 * `<script id="runtime-config" type="application/json">` and read by src/lib/runtime.ts.
 */
export interface RuntimeConfig {
  apiBase: string;
  socketUrl: string;
  socketPath: string;
  env: 'production' | 'development' | 'test';
}
