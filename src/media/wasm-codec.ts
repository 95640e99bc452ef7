/**
 * The one loader of every WebAssembly codec in src/media (the JPEG decoder and encoder, the @jsquash WebP decoder,
 * mozjpeg and the PNG reference decoder): each codec is a `CodecSlot`, instantiated on first use from a module
 * bundled with the Worker (workerd cannot fetch `.wasm` at run time), its memory captured so the benchmarks can
 * report the heap it reached.
 *
 * Instances are kept and reused: a WebAssembly memory never shrinks, and a dropped instance's memory is only freed
 * when the garbage collector gets to it, so a new instance per image let the heaps of consecutive fits pile up
 * (three 12 MP fits: 183–205 MB of RSS growth). A kept instance reuses its heap (malloc hands the freed blocks out
 * again), so repeated images cost one heap, not one per image. Codec calls never overlap: every decode/encode runs
 * inside `serialize` (transcode.ts), one at a time per isolate.
 *
 * Only two things drop an instance: a failure inside the codec (its heap is not trusted again), and a heap that grew
 * past RELEASE_HEAP_BYTES (`releaseLargeCodecHeaps`, before and after every transcode or fit): a rare large decode
 * — a WebP, or a progressive JPEG, which libjpeg holds whole — must not stay reserved for the isolate's life. The
 * one exception is the JPEG decoder between JPEG fits (see `releaseLargeCodecHeaps`).
 */

/** Heaps above this are dropped after use (see the file comment); every ordinary fit stays below it. */
export const RELEASE_HEAP_BYTES = 24 * 1024 * 1024;

/** Instantiates `module` with `imports` and records the memory it exports (or `exports` already made). */
export interface Instantiator {
  (module: WebAssembly.Module, imports: WebAssembly.Imports): WebAssembly.Instance;
  capture(exports: WebAssembly.Exports): void;
}

export interface CodecSlot<T> {
  readonly name: string;
  /** The live instance, created on first use. */
  get(): Promise<T>;
  /** Forgets the instance (and so its memory); the next `get` instantiates the compiled module again (≈1 ms). */
  release(): void;
  /** The current heap in bytes (0 when not instantiated). */
  heapBytes(): number;
  /** The largest heap this codec reached in this isolate. */
  peakBytes(): number;
  /** How many instances were made in this isolate (reuse keeps it at 1). */
  instantiations(): number;
}

const slots = new Map<string, CodecSlot<unknown>>();

export function codecSlot<T>(name: string, create: (instantiate: Instantiator) => Promise<T> | T): CodecSlot<T> {
  let ready: Promise<T> | null = null;
  let memory: WebAssembly.Memory | null = null;
  let peak = 0;
  let made = 0;
  const heapBytes = () => memory?.buffer.byteLength ?? 0;
  const capture = (exports: WebAssembly.Exports) => {
    made++;
    for (const v of Object.values(exports)) if (v instanceof WebAssembly.Memory) memory = v;
  };
  const instantiate = Object.assign(
    (module: WebAssembly.Module, imports: WebAssembly.Imports) => {
      const instance = new WebAssembly.Instance(module, imports);
      capture(instance.exports);
      return instance;
    },
    { capture },
  );
  const slot: CodecSlot<T> = {
    name,
    get() {
      if (!ready) {
        const p = Promise.resolve().then(() => create(instantiate));
        ready = p;
        p.catch(() => {
          if (ready === p) ready = null;
        });
      }
      return ready;
    },
    release() {
      peak = Math.max(peak, heapBytes());
      ready = null;
      memory = null;
    },
    heapBytes,
    peakBytes: () => Math.max(peak, heapBytes()),
    instantiations: () => made,
  };
  slots.set(name, slot as CodecSlot<unknown>);
  return slot;
}

/**
 * An Emscripten module factory instantiated from our bundled module. The Emscripten glue takes workerd (which has
 * `process.versions.node` under nodejs_compat) for Node and reads `__dirname` while it sets up; it never loads
 * anything from disk because it is handed the compiled module.
 */
export function emscripten<T>(
  factory: (options: Record<string, unknown>) => Promise<T>,
  module: WebAssembly.Module,
): (instantiate: Instantiator) => Promise<T> {
  return (instantiate) => {
    const g = globalThis as { __dirname?: string };
    const defined = "__dirname" in g;
    if (!defined) g.__dirname = "/";
    try {
      return factory({
        instantiateWasm: (imports: WebAssembly.Imports, callback: (i: WebAssembly.Instance) => void) => {
          const instance = instantiate(module, imports);
          callback(instance);
          return instance.exports;
        },
      });
    } finally {
      if (!defined) delete g.__dirname;
    }
  };
}

/**
 * Drops every codec instance whose heap grew past RELEASE_HEAP_BYTES, except the named ones. A fit keeps the JPEG
 * decoder it used however large (≤ MAX_DECODE_HEAP_BYTES, checked before decoding): a dropped memory is freed only
 * when the collector gets to it, so dropping the 38–56 MiB heap of a progressive decode after every fit let six
 * consecutive fits reach 270 MB of RSS growth (bench/RESULTS.md, "Fitting a 12 MP photo"), while the kept one is
 * reused by the next fit. Every transcode and every fit of another format drops it first (they never use it).
 */
export function releaseLargeCodecHeaps(keep: readonly string[] = []): void {
  for (const slot of slots.values())
    if (slot.heapBytes() > RELEASE_HEAP_BYTES && !keep.includes(slot.name)) slot.release();
}

/**
 * Drops every codec instance. For tests and benchmarks that measure one instance's heap: files sharing a workerd
 * runtime share these instances, so a heap grown by an earlier file's large decode would be counted otherwise.
 */
export function releaseCodecInstances(): void {
  for (const slot of slots.values()) slot.release();
}

/** The heap each live codec instance holds now, in bytes (`wasmHeapBytes` is the isolate's peak, never lower). */
export function liveWasmHeapBytes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const slot of slots.values()) if (slot.heapBytes()) out[slot.name] = slot.heapBytes();
  return out;
}

/** The largest WebAssembly memory each codec used so far reached in this isolate, in bytes. */
export function wasmHeapBytes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const slot of slots.values()) if (slot.peakBytes()) out[slot.name] = slot.peakBytes();
  return out;
}

/** Instances made per codec in this isolate (tests and benchmarks: reuse keeps each at 1). */
export function codecInstantiations(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const slot of slots.values()) if (slot.instantiations()) out[slot.name] = slot.instantiations();
  return out;
}
