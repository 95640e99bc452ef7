import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_DECODE_HEAP_BYTES } from "../../src/media/fit-image";
import { jpegDecodeBytes } from "../../src/media/jpeg-decode-heap";
import { jpegInfo, jpegStructureProblem } from "../../src/media/jpeg-meta";
import { fakeOrigin } from "../support/fake-fetch";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { bucketKeys, insertPost, jpegHeader, mediaForm, mediaRows } from "./fixtures";
import { baselineJpeg, lyingSizeJpeg, progressive12mp, progressive444, progressiveJpeg, truncatedJpeg } from "./jpegs";

/**
 * Issue 25 finding 9 and issue 29: a JPEG is not trusted from its header at ingest. Its markers are walked; a file
 * cut off, a header claiming a size its data cannot hold, and a JPEG too large to decode at the edge (so it could
 * never be fitted at publish) are refused at upload — by every route — with the reason, and nothing is stored.
 */

const CUT_OFF = "The media field must be a valid image: the file ends before its end-of-image marker (it is cut off).";
const LIE =
  "The media field must be a valid image: its header says 20000×20000, but its image data is too short for that size.";
const TOO_LARGE = (heap: number) =>
  `The media field is a progressive JPEG of 2900×2900 pixels that needs ${(heap / 2 ** 20).toFixed(1)} MiB to decode; ` +
  "at most 48 MiB can be decoded here, so it could never be fitted to a network's limits. Save it as a baseline " +
  "(non-progressive) JPEG or smaller.";

/** A JPEG's bytes with `edit` applied to a copy. */
const edited = (b: Uint8Array, edit: (c: Uint8Array) => void) => {
  const c = b.slice();
  edit(c);
  return c;
};
const sofOf = (b: Uint8Array) => {
  for (let i = 2; i < b.length; ) {
    if (b[i + 1] === 0xc0 || b[i + 1] === 0xc2) return i;
    i += 2 + ((b[i + 2]! << 8) | b[i + 3]!);
  }
  throw new Error("no SOF");
};

describe("jpegStructureProblem: every marker walked (issue 25 #9)", () => {
  it("passes real encoder output, baseline and progressive", () => {
    for (const b of [baselineJpeg, progressiveJpeg, progressive12mp, progressive444])
      expect(jpegStructureProblem(b)).toBeNull();
  });

  it("names what is wrong with a malformed file", () => {
    expect(jpegStructureProblem(truncatedJpeg)).toBe("the file ends before its end-of-image marker (it is cut off).");
    expect(jpegStructureProblem(lyingSizeJpeg)).toBe(
      "its header says 20000×20000, but its image data is too short for that size.",
    );
    // Cut anywhere — in a segment, in the scan, just before EOI — it is cut off.
    for (const end of [3, 30, 300, baselineJpeg.length - 1])
      expect(jpegStructureProblem(baselineJpeg.subarray(0, end))).toBe(
        "the file ends before its end-of-image marker (it is cut off).",
      );
    // A DNL height, 12-bit samples, a second frame header, a segment overrunning the file.
    const sof = sofOf(baselineJpeg);
    expect(
      jpegStructureProblem(
        edited(baselineJpeg, (c) => {
          c.set([0, 0], sof + 5);
        }),
      ),
    ).toBe("its height is given after the image data (DNL), which is not supported.");
    expect(
      jpegStructureProblem(
        edited(baselineJpeg, (c) => {
          c[sof + 4] = 12;
        }),
      ),
    ).toBe("it is a 12-bit JPEG; only 8-bit JPEGs are supported.");
    const twoFrames = new Uint8Array([
      ...baselineJpeg.subarray(0, sof),
      ...baselineJpeg.subarray(sof, sof + 19),
      ...baselineJpeg.subarray(sof),
    ]);
    expect(jpegStructureProblem(twoFrames)).toBe("it has more than one frame header.");
    expect(
      jpegStructureProblem(
        edited(baselineJpeg, (c) => {
          c.set([0xff, 0xff], 4);
        }),
      ),
    ).toBe("the file ends before its end-of-image marker (it is cut off).");
    // No scan at all; not a JPEG.
    expect(jpegStructureProblem(jpegHeader(10, 10, 0, false))).toBe("it has no image data.");
    expect(jpegStructureProblem(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe(
      "it does not start with a JPEG start-of-image marker.",
    );
  });

  it("the 9 MP 4:4:4 progressive file needs more than the 48 MiB decode limit; the 12 MP 4:2:0 one does not", () => {
    expect(jpegDecodeBytes(progressive444.length, jpegInfo(progressive444)!)).toBeGreaterThan(MAX_DECODE_HEAP_BYTES);
    expect(jpegDecodeBytes(progressive12mp.length, jpegInfo(progressive12mp)!)).toBeLessThanOrEqual(
      MAX_DECODE_HEAP_BYTES,
    );
  });
});

const CDN = "https://jpeg-cdn.fake";
let ip = 0;

/** The 422 body (or the from-url failure) for `bytes` sent by `route`; "stored" when it was accepted. */
const ROUTES: Record<string, (ws: TestWorkspace, postId: string, bytes: Uint8Array) => Promise<unknown>> = {
  async multipart(ws, postId, bytes) {
    const res = await call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: mediaForm(bytes, "p.jpg") });
    return res.status === 200 ? "stored" : { status: res.status, body: res.body };
  },
  async "signed upload"(ws, _postId, bytes) {
    const issued = await ws.api("POST", "/api/uploads");
    const url = new URL(issued.body.upload_url);
    const res = await call("POST", `${url.pathname}${url.search}`, {
      rawBody: mediaForm(bytes, "p.jpg"),
      headers: { "CF-Connecting-IP": `198.51.100.${++ip}` },
    });
    return res.status === 201 ? "stored" : { status: res.status, body: res.body };
  },
  async "from-url"(ws, postId, bytes) {
    const off = fakeOrigin(CDN, () => new Response(bytes, { headers: { "Content-Type": "image/jpeg" } }));
    try {
      const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls: [`${CDN}/p.jpg`] });
      expect(res.status).toBe(200);
      return res.body.attached_count === 1 ? "stored" : { failed_urls: res.body.failed_urls };
    } finally {
      off();
    }
  },
};

describe("a JPEG that cannot be trusted or decoded is refused at upload, by every route (issues 25 #9, 29)", () => {
  const heap444 = jpegDecodeBytes(progressive444.length, jpegInfo(progressive444)!);
  for (const [route, send] of Object.entries(ROUTES)) {
    it(route, async () => {
      const ws = await createTestWorkspace();
      const { postId } = await insertPost(ws, [{ platform: "bluesky", contentType: "bluesky_post" }]);
      const before = await bucketKeys();
      const refused = (message: string) =>
        route === "from-url"
          ? { failed_urls: [`${CDN}/p.jpg`] }
          : { status: 422, body: { message, errors: { media: [message] } } };
      expect(await send(ws, postId, truncatedJpeg)).toEqual(refused(CUT_OFF));
      expect(await send(ws, postId, lyingSizeJpeg)).toEqual(refused(LIE));
      expect(await send(ws, postId, progressive444)).toEqual(refused(TOO_LARGE(heap444)));
      expect(await bucketKeys()).toEqual(before);
      expect(await mediaRows(ws.workspaceId)).toEqual([]);
      // Real files that hold: stored (the 12 MP progressive one is fitted for Bluesky at publish).
      for (const ok of [baselineJpeg, progressiveJpeg, progressive12mp])
        expect(await send(ws, postId, ok)).toBe("stored");
      expect(
        await env.DB.prepare("SELECT COUNT(*) AS n FROM media WHERE workspace_id = ?").bind(ws.workspaceId).first("n"),
      ).toBe(3);
    });
  }
});
