import { fakeOrigin } from "../fake-fetch";
import { BSKY_PLC } from "./bluesky";

/**
 * A PLC directory (BLUESKY_PLC_URL in tests) holding DID documents: `GET /<did>` answers the document naming the
 * DID's PDS (`#atproto_pds`), as plc.directory does; an unknown DID is a 404. `docs` may change while installed.
 */
export function fakePlcDirectory(docs: Map<string, string>): () => void {
  return fakeOrigin(BSKY_PLC, (req) => {
    const did = decodeURIComponent(new URL(req.url).pathname.slice(1));
    const pds = docs.get(did);
    if (!pds) return Response.json({ message: `DID not registered: ${did}` }, { status: 404 });
    return Response.json({
      "@context": ["https://www.w3.org/ns/did/v1"],
      id: did,
      alsoKnownAs: [],
      verificationMethod: [],
      service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: pds }],
    });
  });
}
