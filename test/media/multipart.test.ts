import { describe, expect, it } from "vitest";
import { type ByteSource, concatBytes } from "../../src/media/byte-source";
import { formDataBoundary, MultipartError, MultipartReader, parseParams } from "../../src/media/multipart";

const enc = new TextEncoder();

/** A source that yields `bytes` in the given chunk sizes (cycled). */
function chunked(bytes: Uint8Array, sizes: number[]): ByteSource {
  let at = 0;
  let i = 0;
  return {
    async read() {
      if (at >= bytes.length) return null;
      const n = sizes[i++ % sizes.length] as number;
      const c = bytes.slice(at, at + n);
      at += n;
      return c;
    },
    async cancel() {
      at = bytes.length;
    },
  };
}

async function readParts(reader: MultipartReader) {
  const parts: { name: string | null; filename: string | null; body: string; headers: Record<string, string> }[] = [];
  for (let p = await reader.nextPart(); p; p = await reader.nextPart()) {
    const chunks: Uint8Array[] = [];
    for (let c = await reader.readBody(); c; c = await reader.readBody()) chunks.push(c);
    parts.push({ ...p, body: new TextDecoder().decode(concatBytes(chunks)) });
  }
  return parts;
}

const BOUNDARY = "----b0undary";
const body = enc.encode(
  [
    "preamble to ignore",
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="note"',
    "",
    "hello\r\n--not-the-boundary",
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="media"; filename="caf\\"e.png"',
    "Content-Type: image/png",
    "",
    `binary\r\n\r\n--${BOUNDARY.slice(0, 6)}data`,
    `--${BOUNDARY}--`,
    "epilogue",
  ].join("\r\n"),
);

describe("MultipartReader", () => {
  it("parses parts identically whatever the chunking (every split size 1–40)", async () => {
    const expected = [
      {
        name: "note",
        filename: null,
        body: "hello\r\n--not-the-boundary",
        headers: { "content-disposition": 'form-data; name="note"' },
      },
      {
        name: "media",
        filename: 'caf"e.png',
        body: `binary\r\n\r\n--${BOUNDARY.slice(0, 6)}data`,
        headers: {
          "content-disposition": 'form-data; name="media"; filename="caf\\"e.png"',
          "content-type": "image/png",
        },
      },
    ];
    for (let size = 1; size <= 40; size++) {
      const parts = await readParts(new MultipartReader(chunked(body, [size, size * 3 + 1]), BOUNDARY));
      expect(parts, `chunk size ${size}`).toEqual(expected);
    }
  });

  it("skips an unread part body when moving on", async () => {
    const reader = new MultipartReader(chunked(body, [7]), BOUNDARY);
    expect((await reader.nextPart())?.name).toBe("note");
    expect((await reader.nextPart())?.name).toBe("media");
    expect(await reader.nextPart()).toBeNull();
  });

  it("fails on a body cut before the closing boundary", async () => {
    const cut = body.subarray(0, body.length - 30);
    const reader = new MultipartReader(chunked(cut, [16]), BOUNDARY);
    await expect(readParts(reader)).rejects.toBeInstanceOf(MultipartError);
  });

  it("fails when there is no boundary at all", async () => {
    const reader = new MultipartReader(chunked(enc.encode("just text"), [4]), BOUNDARY);
    await expect(reader.nextPart()).rejects.toBeInstanceOf(MultipartError);
  });

  it("reads what the platform's FormData serialiser writes", async () => {
    const form = new FormData();
    form.append("a", "1");
    form.append("media", new File([new Uint8Array([0, 13, 10, 45, 45, 255])], "ünï.bin"));
    const req = new Request("https://x.test/", { method: "POST", body: form });
    const reader = MultipartReader.fromRequest(req);
    expect(reader).not.toBeNull();
    const names: (string | null)[] = [];
    let bytes: Uint8Array | null = null;
    for (let p = await reader!.nextPart(); p; p = await reader!.nextPart()) {
      names.push(p.filename ?? p.name);
      if (p.name === "media") {
        const chunks: Uint8Array[] = [];
        for (let c = await reader!.readBody(); c; c = await reader!.readBody()) chunks.push(c);
        bytes = concatBytes(chunks);
      }
    }
    expect(names).toEqual(["a", "ünï.bin"]);
    expect([...(bytes ?? [])]).toEqual([0, 13, 10, 45, 45, 255]);
  });
});

describe("header helpers", () => {
  it("extracts the boundary of multipart/form-data only", () => {
    expect(formDataBoundary('multipart/form-data; boundary="abc def"')).toBe("abc def");
    expect(formDataBoundary("Multipart/Form-Data; charset=utf-8; boundary=xyz")).toBe("xyz");
    expect(formDataBoundary("multipart/mixed; boundary=xyz")).toBeNull();
    expect(formDataBoundary("application/json")).toBeNull();
    expect(formDataBoundary("multipart/form-data")).toBeNull();
    expect(formDataBoundary(null)).toBeNull();
  });

  it("parses Content-Disposition parameters, including RFC 5987 filename*", () => {
    expect(parseParams(`form-data; name="media"; filename*=UTF-8''%E2%82%AC%20rates.png`)).toEqual({
      name: "media",
      "filename*": "€ rates.png",
    });
    expect(parseParams("form-data; name=media; filename=a.png")).toEqual({ name: "media", filename: "a.png" });
  });
});
