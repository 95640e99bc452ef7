import { packedRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";

/**
 * A photo-like JPEG of `width` × `height` with fine detail (quality 97), so it is as large as a camera's: the
 * fitting tests need a file well over a network's byte limit that only a real downscale or re-encode brings under.
 */
export function detailedPhoto(width: number, height: number): Promise<Uint8Array> {
  const px = new Uint8Array(width * height * 3);
  for (let y = 0, i = 0; y < height; y++)
    for (let x = 0; x < width; x++, i += 3) {
      px[i] = (128 + 100 * Math.sin(x / 37) * Math.cos(y / 53)) | 0;
      px[i + 1] = (128 + 90 * Math.sin((x + y) / 71)) | 0;
      px[i + 2] = ((x * 13) ^ (y * 7)) & 255;
    }
  return encodeRows(packedRows(px, width, height, 3), 97);
}
