/**
 * JPEGs written by a real encoder (sharp → libjpeg-turbo) and hand-malformed copies, committed in
 * test/media/fixtures/jpeg/ and made by scripts/make-jpeg-fixtures.mjs (listed in that folder's README.md).
 */
import baselineUrl from "./fixtures/jpeg/baseline.jpg?inline";
import lyingSizeUrl from "./fixtures/jpeg/lying-size.jpg?inline";
import progressiveUrl from "./fixtures/jpeg/progressive.jpg?inline";
import progressive12Url from "./fixtures/jpeg/progressive-12mp.jpg?inline";
import progressive444Url from "./fixtures/jpeg/progressive-444.jpg?inline";
import truncatedUrl from "./fixtures/jpeg/truncated.jpg?inline";

function bytes(dataUrl: string): Uint8Array {
  const bin = atob(dataUrl.slice(dataUrl.indexOf(",") + 1));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** sharp, 320×240 baseline, quality 80. */
export const baselineJpeg = bytes(baselineUrl);
/** sharp, 320×240 progressive, quality 80. */
export const progressiveJpeg = bytes(progressiveUrl);
/** sharp, 4032×3024 progressive 4:2:0 (a 12 MP phone frame): ≈ 39 MiB to decode, within the 48 MiB limit. */
export const progressive12mp = bytes(progressive12Url);
/** sharp, 2900×2900 progressive 4:4:4: 48.3 MiB of coefficients alone, past the 48 MiB decode limit. */
export const progressive444 = bytes(progressive444Url);
/** baseline.jpg cut at 60 %: mid-scan, no EOI. */
export const truncatedJpeg = bytes(truncatedUrl);
/** baseline.jpg with its SOF0 rewritten to say 20000×20000 (its 3 KB of scan data cannot hold that). */
export const lyingSizeJpeg = bytes(lyingSizeUrl);
