// Writes the real-muxer video fixtures in test/media/fixtures/video/ (committed; tests never run ffmpeg).
// Run once: `node scripts/make-video-fixtures.mjs`. The ffmpeg binary is the static build shipped inside the npm
// package @ffmpeg-installer/linux-x64 (devDependency via @ffmpeg-installer/ffmpeg; ffmpeg N-47683 static, 2018,
// libx264 + libx265). `ffmpeg-static` cannot be used here: its install script downloads the binary from GitHub.
// Each file's exact command is printed and listed in test/media/fixtures/video/README.md. The "derived" files are
// a real file with one box header rewritten the way a muxer writes it for larger files (see derive() below).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";

const out = path.resolve(import.meta.dirname, "../test/media/fixtures/video");
const ffmpeg = ffmpegInstaller.path;
try {
  chmodSync(ffmpeg, 0o755);
} catch {}

// 3 s of test pattern and a 440 Hz tone: H.264 (libx264 adds B-frames, so an edit list) + AAC (priming, so the
// audio track's edit list starts at sample 1024), as a phone or an editor writes them.
const input = (size, seconds = 3) => [
  ...["-f", "lavfi", "-i", `testsrc=size=${size}:rate=30`],
  ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"],
  ...["-t", String(seconds)],
];
const h264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "38", "-pix_fmt", "yuv420p"];
const phoneH264 = ["-c:v", "libx264", "-preset", "veryfast", "-b:v", "160k", "-maxrate", "160k", "-bufsize", "240k"];
const aac = ["-c:a", "aac", "-b:a", "24k"];
const bitexact = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact"];

const fixtures = [
  // QuickTime layout (ffmpeg's mov muxer): `wide` + `mdat` + `moov` at the end, each track's `minf` holds a
  // second, data-handler `hdlr` (dhlr / "url ") as in every iPhone video.
  ["clip.mov", [...input("320x240"), ...h264, ...aac, ...bitexact, "-f", "mov"]],
  // ISO-BMFF, ffmpeg's default: `moov` after `mdat`.
  ["clip.mp4", [...input("320x240"), ...h264, ...aac, ...bitexact]],
  // ISO-BMFF with `moov` first (what networks ask for).
  ["faststart.mp4", [...input("320x240"), ...h264, ...aac, ...bitexact, "-movflags", "+faststart"]],
  // A phone's portrait video, first encoded: HEVC (hvc1) stored 320×180, QuickTime; the 90° matrix is added below.
  [
    "portrait-hevc.tmp.mov",
    [
      ...input("320x180"),
      ...["-c:v", "libx265", "-preset", "veryfast", "-crf", "38", "-tag:v", "hvc1", "-pix_fmt", "yuv420p"],
      ...["-x265-params", "log-level=error"],
      ...aac,
      ...bitexact,
      ...["-f", "mov"],
    ],
  ],
  // Publishable everywhere that takes video (9:16, ≥ 540×960, 4.5 s, ≥ 75 KB for LinkedIn, ≥ 4 s for Pinterest):
  // a phone's portrait H.264 + AAC, QuickTime, stored 960×540 (the 90° matrix is added below) …
  ["phone.tmp.mov", [...input("960x540", 4.5), ...phoneH264, "-pix_fmt", "yuv420p", ...aac, ...bitexact, "-f", "mov"]],
  // … and the same picture as ISO-BMFF MP4 stored upright, ffmpeg's default layout (moov after mdat).
  ["phone.mp4", [...input("540x960", 4.5), ...phoneH264, "-pix_fmt", "yuv420p", ...aac, ...bitexact]],
  // Fragmented MP4 (empty moov: every duration is 0; the samples are in moof/trun, one fragment per second).
  [
    "fragmented.mp4",
    [...input("320x240"), ...h264, ...aac, ...bitexact, "-g", "30", "-movflags", "+frag_keyframe+empty_moov"],
  ],
];

const run = (args) => {
  const shown = args.map((a) => (a.startsWith(out) ? path.relative(out, a) : a));
  console.log(`ffmpeg ${shown.map((a) => (/[\s=:+]/.test(a) && !a.startsWith("-") ? `'${a}'` : a)).join(" ")}`);
  execFileSync(ffmpeg, ["-v", "error", "-y", ...args], { stdio: "inherit" });
};

for (const [name, args] of fixtures) run([...args, path.join(out, name)]);
// The portrait matrix (a=0 b=1 c=-1 d=0, what an iPhone writes for a portrait video: shown 180×320, `ffmpeg -i` says
// "rotate: 90"). This static ffmpeg (2018) ignores `rotate` when encoding and negates it when stream copying, so
// the metadata given is 270; the matrix written is checked in test/media/mp4-info.test.ts.
run([
  ...["-i", path.join(out, "portrait-hevc.tmp.mov"), "-c", "copy", ...bitexact],
  ...["-metadata:s:v:0", "rotate=270", "-f", "mov", path.join(out, "portrait-hevc.mov")],
]);
rmSync(path.join(out, "portrait-hevc.tmp.mov"));
run([
  ...["-i", path.join(out, "phone.tmp.mov"), "-c", "copy", ...bitexact],
  ...["-metadata:s:v:0", "rotate=270", "-f", "mov", path.join(out, "phone.mov")],
]);
rmSync(path.join(out, "phone.tmp.mov"));
// An edit list that cuts the first second: stream copy from 1 s keeps the media from the keyframe at 0 and writes
// an edit list of 2 s (mvhd still says 3.024 s; a player shows 2 s).
run(["-ss", "1", "-i", path.join(out, "clip.mp4"), "-c", "copy", ...bitexact, path.join(out, "trimmed.mp4")]);

// Limit fixtures: a still grey picture, no audio, at the fewest frames that give the exact duration (a frame every
// `every` seconds), for tests whose subject is a duration or a side at a network's bound (30 min, 241 min, 4,097
// px, 19 px wide …). H.264 4:2:0 needs even sides; an odd side is written 4:4:4 (High 4:4:4, still `avc1`; the
// source is asked for yuv444p too, or it rounds the sides down to even). A test
// that needs a byte size pads one of these with a trailing `free` box (paddedVideo in test/media/videos.ts).
const LIMITS = [
  // [width, height, seconds, every]
  [1080, 1920, 2, 0.5],
  [1080, 1920, 3, 0.5],
  [1080, 1920, 60, 1],
  [1080, 1920, 61, 1],
  [1080, 1920, 300, 10],
  [1080, 1920, 301, 7],
  [1080, 1920, 900, 60],
  [1080, 1920, 960, 60],
  [19, 1920, 12.5, 0.5],
  [20, 1920, 12.5, 0.5],
  [1080, 1080, 30, 1],
  [540, 960, 90, 10],
  [1920, 1080, 200, 10],
  [1920, 1080, 14400, 60],
  [1920, 1080, 14460, 60],
  [2304, 4096, 600, 60],
  [2304, 4097, 30, 1],
  [1280, 720, 3, 0.5],
  [3840, 2160, 3, 0.5],
  [13801, 601, 3, 0.5],
];
mkdirSync(path.join(out, "limits"), { recursive: true });
for (const [w, h, seconds, every] of LIMITS) {
  const pix = w % 2 || h % 2 ? "yuv444p" : "yuv420p";
  const rate = every >= 1 ? `1/${every}` : String(1 / every);
  run([
    ...["-f", "lavfi", "-i", `color=c=gray:size=${w}x${h}:rate=${rate},format=${pix}`, "-t", String(seconds)],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "51", "-pix_fmt", pix, "-an", ...bitexact],
    path.join(out, "limits", `${w}x${h}-${seconds}s.mp4`),
  ]);
}

/** Top-level boxes of a file: [type, offset, size, headerBytes]. */
function topLevel(b) {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const boxes = [];
  for (let at = 0; at + 8 <= b.length; ) {
    let size = dv.getUint32(at);
    const type = String.fromCharCode(...b.subarray(at + 4, at + 8));
    let header = 8;
    if (size === 1) {
      size = Number(dv.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) size = b.length - at;
    boxes.push([type, at, size, header]);
    at += size;
  }
  return boxes;
}

function derive(from, name, edit) {
  const b = new Uint8Array(readFileSync(path.join(out, from)));
  edit(b, topLevel(b), new DataView(b.buffer));
  writeFileSync(path.join(out, name), b);
  console.log(`derived ${name} from ${from}`);
}

// 64-bit box size: ffmpeg's mov muxer reserves an 8-byte `wide` box before `mdat` and, when the mdat passes 4 GB,
// turns wide+mdat into one mdat header with size 1 and a 64-bit largesize. Done here on the 3 s file.
derive("clip.mov", "largesize.mov", (b, boxes, dv) => {
  const wide = boxes.find(([t]) => t === "wide");
  const mdat = boxes.find(([t]) => t === "mdat");
  if (!wide || !mdat || mdat[1] !== wide[1] + 8) throw new Error("clip.mov: no wide box before mdat");
  dv.setUint32(wide[1], 1);
  b.set([0x6d, 0x64, 0x61, 0x74], wide[1] + 4);
  dv.setBigUint64(wide[1] + 8, BigInt(mdat[2] + 8));
});
// Size 0 ("to the end of the file") on the last box: the mdat of a moov-first file, as streaming muxers write it.
derive("faststart.mp4", "mdat-to-end.mp4", (_b, boxes, dv) => {
  const last = boxes.at(-1);
  if (last[0] !== "mdat") throw new Error("faststart.mp4: mdat is not last");
  dv.setUint32(last[1], 0);
});
