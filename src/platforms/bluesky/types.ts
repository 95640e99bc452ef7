/** AT Protocol shapes used by the Bluesky adapter (lexicons as shipped in @atproto/api 0.20.x). */

export interface BlobRef {
  $type: "blob";
  ref: { $link: string };
  mimeType: string;
  size: number;
}

export interface XrpcErrorBody {
  error?: string;
  message?: string;
}

export interface Session {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
  active?: boolean;
}

export interface CreateRecordResponse {
  uri: string;
  cid: string;
  commit?: { cid: string; rev: string };
  validationStatus?: string;
}

export interface GetRecordResponse {
  uri: string;
  cid?: string;
  value: Record<string, unknown>;
}

export type FacetFeature =
  | { $type: "app.bsky.richtext.facet#link"; uri: string }
  | { $type: "app.bsky.richtext.facet#mention"; did: string }
  | { $type: "app.bsky.richtext.facet#tag"; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

export interface AspectRatio {
  width: number;
  height: number;
}

export type Embed =
  | { $type: "app.bsky.embed.images"; images: { image: BlobRef; alt: string; aspectRatio?: AspectRatio }[] }
  | { $type: "app.bsky.embed.video"; video: BlobRef; alt?: string; aspectRatio?: AspectRatio };

export interface PostRecord {
  $type: "app.bsky.feed.post";
  text: string;
  createdAt: string;
  facets?: Facet[];
  embed?: Embed;
  /** A reply's thread position: the thread's first post and the post it answers (strong refs: uri + cid). */
  reply?: ReplyRef;
}

/** `com.atproto.repo.strongRef`: a record's at-uri and the CID of the exact version meant. */
export interface StrongRef {
  uri: string;
  cid: string;
}

/** `app.bsky.feed.post#replyRef`. */
export interface ReplyRef {
  root: StrongRef;
  parent: StrongRef;
}

export interface JobStatus {
  jobId: string;
  did?: string;
  state: string;
  progress?: number;
  blob?: BlobRef;
  error?: string;
  message?: string;
}

export interface PostView {
  uri: string;
  cid: string;
  likeCount?: number;
  repostCount?: number;
  replyCount?: number;
  quoteCount?: number;
  bookmarkCount?: number;
}

/** A DID document (plc.directory/<did> or https://<host>/.well-known/did.json): the services it names. */
export interface DidDocument {
  id?: string;
  service?: Array<{ id?: string; type?: string; serviceEndpoint?: string }>;
}
