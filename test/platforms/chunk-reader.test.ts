import { describe, expect, it } from "vitest";
import { ChunkReader } from "../../src/platforms/chunk-reader";

function streamOf(pieces: number[][]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const p of pieces) controller.enqueue(new Uint8Array(p));
      controller.close();
    },
  });
}

describe("ChunkReader", () => {
  it("re-slices uneven stream pieces into exact chunk sizes", async () => {
    const reader = new ChunkReader(streamOf([[1, 2], [3, 4, 5, 6, 7], [8], [9, 10]]));
    expect([...(await reader.read(3))]).toEqual([1, 2, 3]);
    expect([...(await reader.read(4))]).toEqual([4, 5, 6, 7]);
    expect([...(await reader.read(3))]).toEqual([8, 9, 10]);
  });

  it("fails permanently when the stored object is shorter than announced", async () => {
    const reader = new ChunkReader(streamOf([[1, 2]]));
    await expect(reader.read(3)).rejects.toMatchObject({
      name: "PlatformError",
      kind: "permanent",
      message: "The stored media file ended after 2 of 3 expected bytes.",
    });
  });
});
